import { useMemo, useState } from "preact/hooks";
import type { ArtifactSummary, ChatSummary } from "../api";
import { navigate } from "../router";

function when(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  const today = new Date();
  return d.toDateString() === today.toDateString()
    ? d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : d.toLocaleDateString([], { month: "short", day: "numeric" });
}

export function Sidebar(props: {
  chats: ChatSummary[];
  apps: ArtifactSummary[];
  current: string | null;
  page: string;
  onNew: () => void;
  onClose: () => void;
}) {
  const [search, setSearch] = useState("");
  const [archived, setArchived] = useState(false);
  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    const list = props.chats.filter((c) => c.archived === archived);
    return q ? list.filter((c) => (c.title ?? "New chat").toLowerCase().includes(q)) : list;
  }, [props.chats, search, archived]);
  const archivedCount = props.chats.filter((c) => c.archived).length;
  const go = (path: string) => {
    navigate(path);
    props.onClose();
  };
  return (
    <nav class="sidebar" aria-label="Chats and pages">
      <div class="sidebar-top">
        <span class="brand">Conch</span>
        <button class="primary" onClick={props.onNew}>
          New chat
        </button>
      </div>
      <input
        type="search"
        class="search"
        placeholder="Search chats"
        aria-label="Search chats"
        value={search}
        onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
      />
      <ul class="chat-list">
        {shown.map((c) => (
          <li key={c.id}>
            <a
              href={`/chats/${c.id}`}
              class={props.page === "chat" && c.id === props.current ? "current" : ""}
              aria-current={props.page === "chat" && c.id === props.current ? "page" : undefined}
              onClick={(e) => {
                e.preventDefault();
                go(`/chats/${c.id}`);
              }}
            >
              <span class="title">{c.title || "New chat"}</span>
              {c.waiting > 0 ? (
                <span class="when needs">needs you</span>
              ) : (
                <span class="when">{c.running ? "working…" : when(c.updated)}</span>
              )}
            </a>
          </li>
        ))}
        {shown.length === 0 && <li class="quiet empty">{search ? "No chat matches." : archived ? "No archived chats." : "No chats yet."}</li>}
      </ul>
      {(archivedCount > 0 || archived) && (
        <button class="link archived-toggle" aria-pressed={archived} onClick={() => setArchived(!archived)}>
          {archived ? "Back to your chats" : `Archived (${archivedCount})`}
        </button>
      )}
      {props.apps.length > 0 && (
        <section class="apps" aria-labelledby="apps-heading">
          <h2 id="apps-heading" class="side-heading">
            Apps
          </h2>
          <ul class="apps-list">
            {props.apps.map((a) => (
              <li key={a.id}>
                <a
                  href={`/apps/${a.id}`}
                  class={props.page === "app" && a.id === props.current ? "current" : ""}
                  aria-current={props.page === "app" && a.id === props.current ? "page" : undefined}
                  onClick={(e) => {
                    e.preventDefault();
                    go(`/apps/${a.id}`);
                  }}
                >
                  {a.title}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <div class="sidebar-bottom">
        <a
          href="/activity"
          class={props.page === "activity" ? "current" : ""}
          onClick={(e) => {
            e.preventDefault();
            go("/activity");
          }}
        >
          Activity
        </a>
        <a
          href="/memories"
          class={props.page === "memories" ? "current" : ""}
          onClick={(e) => {
            e.preventDefault();
            go("/memories");
          }}
        >
          Memories
        </a>
        <a
          href="/skills"
          class={props.page === "skills" ? "current" : ""}
          onClick={(e) => {
            e.preventDefault();
            go("/skills");
          }}
        >
          Skills
        </a>
        <a
          href="/settings"
          class={props.page === "settings" || props.page === "security" ? "current" : ""}
          onClick={(e) => {
            e.preventDefault();
            go("/settings");
          }}
        >
          Settings
        </a>
        <span class="quiet hint">Ctrl K to find anything</span>
      </div>
    </nav>
  );
}
