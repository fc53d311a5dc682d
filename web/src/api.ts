// Talking to the gateway. Every refusal is a status and one sentence; the
// sentence is what the page shows.

export class ApiError extends Error {
  constructor(
    public status: number,
    public sentence: string,
  ) {
    super(sentence);
  }
}

async function call<T>(method: string, path: string, body?: unknown, as: "json" | "text" = "json"): Promise<T> {
  const init: RequestInit = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, "Conch isn't answering. Is it still running?");
  }
  const text = await res.text();
  if (res.ok && as === "text") return text as T;
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) {
    const sentence =
      data && typeof data === "object" && "error" in data
        ? String((data as { error: unknown }).error)
        : `Conch answered ${res.status}.`;
    throw new ApiError(res.status, sentence);
  }
  return data as T;
}

export type Mode = "ask" | "edits" | "auto" | "full";

export interface ChatSummary {
  id: string;
  title: string | null;
  work: string | null;
  mode: Mode | null;
  origin: string | null;
  created: string | null;
  updated: string | null;
  running: boolean;
  /** Questions waiting for the owner in it. */
  waiting?: number;
  /** For a routine's run: the routine's id. */
  routine?: string;
}

export interface Hold {
  skill: string;
  source: string;
  since: number;
  by: string;
  permissions: Permissions | null;
}

export interface Permissions {
  commands: string[];
  files: string;
  web: string;
  integrations: string[];
}

export interface ChatInfo {
  id: string;
  title: string | null;
  work: string | null;
  origin: string | null;
  mode: Mode;
  lastSeq: number;
  running: boolean;
  turnOpen: number | null;
  holds: Hold[];
}

export interface Finding {
  rule: string;
  severity: string;
  file: string;
  line: number;
  excerpt: string;
  says: string;
}

export interface Skill {
  id: string;
  name: string;
  description: string;
  source: string;
  app: string;
  fingerprint: string;
  verdict: "clean" | "caution" | "danger";
  findings: Finding[];
  unread: { path: string; why: string }[];
  permissions: Permissions;
  declared: boolean;
  state: { state: "on" } | { state: "off"; why: string; says: string };
  files: string[];
}

export interface AccessKey {
  id: string;
  name: string;
  created: string;
}

/** Auto mode's judgement counters across every chat. */
export interface ReviewTotals {
  reviewAllowed: number;
  reviewRejected: number;
  reviewAsked: number;
  reviewExhausted: number;
}

export interface ActivityRow {
  cursor: string;
  chat: string;
  chatTitle: string | null;
  seq: number;
  event: string;
  at: string;
  kind: string;
  says: string;
  state?: string;
  ask?: string;
}

export interface Safety {
  checkAfterReading: boolean;
  sealedCommands: boolean;
  checkMemories: boolean;
}

export interface Check {
  id: string;
  ok: boolean;
  says: string;
  fix?: { kind: "turn-on"; setting: keyof Safety } | { kind: "command"; line: string } | { kind: "advice"; says: string };
}

export type ArtifactKind = "html" | "markdown" | "svg" | "mermaid" | "chart" | "table";

/** One line of `GET /api/artifacts`. */
export interface ArtifactSummary {
  id: string;
  kind: ArtifactKind;
  title: string;
  chat: string | null;
  created: string;
  updated: string;
  latest: number;
  versions: number;
  pinned: boolean;
  navigates: boolean;
}

export interface ArtifactVersion {
  n: number;
  at: string;
  by: "made" | "updated" | "refreshed";
  navigates: boolean;
  why?: string[];
  chars: number;
}

/** An artifact's artifact.json (`GET /api/artifacts/{id}`). */
export interface Artifact {
  id: string;
  kind: ArtifactKind;
  title: string;
  chat: string | null;
  request: string | null;
  latest: number;
  versions: ArtifactVersion[];
  pinned: boolean;
  healed?: string | null;
}

export interface DiffLine {
  op: "same" | "added" | "removed";
  text: string;
}

export interface Routine {
  id: string;
  name: string;
  schedule: string;
  task: string;
  mode: Mode | null;
  work: string | null;
  created: number;
  madeIn: string | null;
  on: boolean;
  runs: string[];
}

export interface Bridge {
  app: string;
  token: boolean;
  apiBase: string;
  owner: { id: string; name: string } | null;
  linkWaiting: boolean;
  allowed: { id: string | null; handle: string | null; name: string | null }[];
  chats: number;
}

const art = (id: string) => `/api/artifacts/${encodeURIComponent(id)}`;

export const api = {
  artifacts: (pinned?: boolean) =>
    call<{ artifacts: ArtifactSummary[] }>("GET", `/api/artifacts${pinned ? "?pinned=true" : ""}`).then((r) => r.artifacts),
  artifact: (id: string) => call<Artifact>("GET", art(id)),
  artifactText: (id: string, n: number) => call<string>("GET", `${art(id)}/versions/${n}`, undefined, "text"),
  artifactDiff: (id: string, from: number | null, to: number) =>
    call<{ from: number | null; to: number; lines: DiffLine[] }>("GET", `${art(id)}/diff?to=${to}${from ? `&from=${from}` : ""}`),
  deleteArtifact: (id: string) => call<unknown>("DELETE", art(id)),
  pin: (id: string, pinned: boolean) => call<{ id: string; pinned: boolean }>("POST", `${art(id)}/${pinned ? "pin" : "unpin"}`),
  refresh: (id: string) => call<{ chat: string }>("POST", `${art(id)}/refresh`),
  activity: (q: { before?: string; kinds?: string[]; waiting?: boolean; limit?: number }) => {
    const p = new URLSearchParams();
    if (q.before) p.set("before", q.before);
    if (q.kinds?.length) p.set("kinds", q.kinds.join(","));
    if (q.waiting) p.set("waiting", "1");
    p.set("limit", String(q.limit ?? 50));
    return call<{ rows: ActivityRow[]; next: string | null; totals?: ReviewTotals }>("GET", `/api/activity?${p}`);
  },
  safety: () => call<Safety>("GET", "/api/settings/safety"),
  setSafety: (change: Partial<Safety>) => call<Safety>("POST", "/api/settings/safety", change),
  confirmPassword: (password: string) => call<unknown>("POST", "/api/session/confirm", { password }),
  checkup: () => call<{ checks: Check[] }>("GET", "/api/security"),
  session: () => call<{ who: string }>("GET", "/api/session"),
  signIn: (password: string) => call<{ ok: boolean }>("POST", "/api/session", { password }),
  signOut: () => call<unknown>("DELETE", "/api/session"),
  signOutEverywhere: () => call<{ ended: number }>("DELETE", "/api/sessions"),
  chats: () => call<ChatSummary[]>("GET", "/api/chats"),
  newChat: () => call<{ id: string }>("POST", "/api/chats"),
  chat: (id: string) => call<ChatInfo>("GET", `/api/chats/${id}`),
  events: (id: string, after: number) =>
    call<unknown[]>("GET", `/api/chats/${id}/events?after=${after}&limit=10000`),
  post: (id: string, text: string) =>
    call<{ seq: number; queued: boolean }>("POST", `/api/chats/${id}/messages`, { text }),
  answer: (id: string, ask: string, answer: "once" | "always" | "deny") =>
    call<unknown>("POST", `/api/chats/${id}/permissions/${ask}`, { answer }),
  setMode: (id: string, mode: Mode) => call<unknown>("POST", `/api/chats/${id}/mode`, { mode }),
  stop: (id: string) => call<{ stopped: boolean }>("POST", `/api/chats/${id}/stop`),
  stopHolding: (id: string, skill: string) =>
    call<unknown>("POST", `/api/chats/${id}/skills/${encodeURIComponent(skill)}/stop-holding`),
  skills: () => call<Skill[]>("GET", "/api/skills"),
  skill: (id: string) => call<Skill>("GET", `/api/skills/${encodeURIComponent(id)}`),
  enableSkill: (id: string, hash?: string) =>
    call<Skill>("POST", `/api/skills/${encodeURIComponent(id)}/enable`, hash ? { hash } : {}),
  disableSkill: (id: string) => call<Skill>("POST", `/api/skills/${encodeURIComponent(id)}/disable`),
  keys: () => call<AccessKey[]>("GET", "/api/keys"),
  newKey: (name: string) => call<{ id: string; name: string; key: string }>("POST", "/api/keys", { name }),
  revokeKey: (id: string) => call<unknown>("DELETE", `/api/keys/${id}`),
  routines: () => call<Routine[]>("GET", "/api/routines"),
  addRoutine: (r: { schedule: string; task: string; name?: string; mode?: Mode }) => call<Routine>("POST", "/api/routines", r),
  removeRoutine: (name: string) => call<unknown>("DELETE", `/api/routines/${encodeURIComponent(name)}`),
  runRoutine: (name: string) => call<{ chat: string }>("POST", `/api/routines/${encodeURIComponent(name)}/run`),
  notificationWays: () => call<{ ways: { way: string; on: boolean; linked: boolean }[] }>("GET", "/api/settings/notifications"),
  setNotificationWay: (way: string, on: boolean) =>
    call<{ ways: { way: string; on: boolean; linked: boolean }[] }>("POST", "/api/settings/notifications", { [way]: on }),
  bridges: () => call<Bridge[]>("GET", "/api/bridges"),
  addBridge: (app: string, token: string, apiBase?: string) =>
    call<{ says: string }>("POST", `/api/bridges/${app}`, apiBase ? { token, apiBase } : { token }),
  linkBridge: (app: string) => call<{ code: string; send: string; expires: number }>("POST", `/api/bridges/${app}/link`),
  allow: (app: string, user: string) => call<{ added: boolean }>("POST", `/api/bridges/${app}/allowed`, { user }),
  disallow: (app: string, user: string) => call<unknown>("DELETE", `/api/bridges/${app}/allowed/${encodeURIComponent(user)}`),
};
