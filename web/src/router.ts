// Paths, without a router library: /, /chats/:id, /skills, /skills/:id,
// /settings, /settings/security, /settings/models, /settings/connections (and its
// older /settings/apps), /settings/chat-apps, /activity, /routines,
// /apps/:id, /memories.

import { useEffect, useState } from "preact/hooks";

const listeners = new Set<() => void>();

export function navigate(path: string): void {
  if (location.pathname + location.search !== path) history.pushState(null, "", path);
  listeners.forEach((l) => l());
}

addEventListener("popstate", () => listeners.forEach((l) => l()));

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return path;
}

export type Route =
  | { page: "home" }
  | { page: "chat"; id: string }
  | { page: "skills"; id?: string }
  | { page: "settings" }
  | { page: "security" }
  | { page: "models" }
  | { page: "apps" }
  | { page: "chatapps" }
  | { page: "passwords" }
  | { page: "backups" }
  | { page: "trash" }
  | { page: "activity"; waiting?: boolean }
  | { page: "routines" }
  | { page: "app"; id: string }
  | { page: "memories" };

export function route(path: string): Route {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "chats" && parts[1]) return { page: "chat", id: parts[1] };
  if (parts[0] === "skills") return { page: "skills", id: parts[1] };
  if (parts[0] === "settings" && parts[1] === "security") return { page: "security" };
  if (parts[0] === "settings" && parts[1] === "models") return { page: "models" };
  if (parts[0] === "settings" && (parts[1] === "connections" || parts[1] === "apps")) return { page: "apps" };
  if (parts[0] === "settings" && parts[1] === "chat-apps") return { page: "chatapps" };
  if (parts[0] === "settings" && parts[1] === "passwords") return { page: "passwords" };
  if (parts[0] === "settings" && parts[1] === "backups") return { page: "backups" };
  if (parts[0] === "settings" && parts[1] === "trash") return { page: "trash" };
  if (parts[0] === "settings") return { page: "settings" };
  if (parts[0] === "activity") return { page: "activity", waiting: new URLSearchParams(location.search).has("waiting") };
  if (parts[0] === "routines") return { page: "routines" };
  if (parts[0] === "apps" && parts[1]) return { page: "app", id: parts[1] };
  if (parts[0] === "memories") return { page: "memories" };
  return { page: "home" };
}
