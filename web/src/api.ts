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

export async function call<T>(method: string, path: string, body?: unknown, as: "json" | "text" = "json"): Promise<T> {
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
  /** Questions waiting for the owner: the chat needs them. */
  waiting: number;
  archived: boolean;
  provider: string | null;
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
  archived: boolean;
  /** The provider the next turn runs on (picked or the default), its model. */
  provider: string | null;
  model: string | null;
  /** The provider the owner picked for this chat, if any. */
  picked: string | null;
  /** What answers when no provider is set up ("mock"). */
  engine: string;
  /** Every "always" in force in the chat, in words, and who gave it. */
  grants: Grant[];
}

/** An "always" in force (`GET /api/chats/{id}/grants`). */
export interface Grant {
  key: string;
  says: string;
  by: string | null;
  at: string | null;
}

export interface Provider {
  name: string;
  kind: "openai" | "anthropic";
  baseUrl: string;
  model: string;
  contextTokens: number;
  hasKey: boolean;
  default: boolean;
}

export interface Tested {
  ok: boolean;
  answer?: string;
  error?: string;
  ms: number;
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

/** A deleted chat the trash still keeps. */
export interface Trashed {
  id: string;
  title: string | null;
  deletedAt: string | null;
}

export interface ActivityRow {
  cursor: string;
  chat: string;
  chatTitle: string | null;
  /** The chat is in the trash. */
  chatDeleted?: boolean;
  seq: number;
  event: string;
  at: string;
  kind: string;
  says: string;
  state?: string;
  ask?: string;
  /** A held memory's id, while it waits for the owner. */
  memory?: string;
}

export interface MemorySource {
  kind: "owner" | "chat" | "import";
  /** "you", "a chat", "a chat that read news.example", "an import from …" */
  says: string;
  chat?: string;
  marked?: boolean;
  read?: string[];
  ownerWords?: boolean;
  from?: string;
}

export interface Memory {
  id: string;
  text: string;
  state: "kept" | "held";
  source: MemorySource;
  reasons: { rule: string; says: string }[];
  created: string;
  updated: string;
}

export interface Safety {
  checkAfterReading: boolean;
  sealedCommands: boolean;
  enginesInBox: boolean;
  checkMemories: boolean;
}

export interface Check {
  id: string;
  ok: boolean;
  says: string;
  fix?:
    | { kind: "turn-on"; setting: keyof Safety }
    | { kind: "command"; line: string }
    | { kind: "advice"; says: string }
    | { kind: "memories"; held: string[] };
}

/** One check of Repair everything (`GET`/`POST /api/security/repair`). */
export interface RepairItem {
  id: string;
  state: "fixed" | "found" | "needs-you" | "type" | "fine";
  says: string;
  line?: string;
}

export interface Repair {
  items: RepairItem[];
  repaired: number;
  found: number;
  needsYou: number;
}

/** One key Conch keeps (`GET /api/passwords`): never its value. */
export interface KeptKey {
  kind: "provider" | "app" | "chatApp" | "accessKey" | "signingKey" | "deviceKey";
  name: string;
  fingerprint?: string;
  field?: string;
  id?: string;
  publicKey?: string;
  keystore?: string | null;
  says?: string;
  inUse?: boolean;
}

/** Settings → Backups (`GET /api/backups`). */
export interface Backups {
  schedule: { every: "off" | "daily" | "weekly"; keep: number; passphrase: boolean };
  backups: { name: string; size: number; made: string; locked: boolean }[];
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
  /** What the chat it was made in had read: every run starts marked so. */
  carries: string[];
  /** Whose words other than the owner's were in that chat. */
  askedBy: string[];
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

export const art = (id: string) => `/api/artifacts/${encodeURIComponent(id)}`;

export const api = {
  artifacts: (pinned?: boolean) =>
    call<{ artifacts: ArtifactSummary[] }>("GET", `/api/artifacts${pinned ? "?pinned=true" : ""}`).then((r) => r.artifacts),
  artifact: (id: string) => call<Artifact>("GET", art(id)),
  artifactText: (id: string, n: number) => call<string>("GET", `${art(id)}/versions/${n}`, undefined, "text"),
  artifactDiff: (id: string, from: number | null, to: number) =>
    call<{ from: number | null; to: number; lines: DiffLine[] }>("GET", `${art(id)}/diff?to=${to}${from ? `&from=${from}` : ""}`),
  session: () => call<{ who: string }>("GET", "/api/session"),
  signIn: (password: string) => call<{ ok: boolean }>("POST", "/api/session", { password }),
  chats: () => call<ChatSummary[]>("GET", "/api/chats"),
  /** New chat: the newest empty one is opened instead of another. */
  newChat: () => call<{ id: string; reused: boolean }>("POST", "/api/chats", { reuseEmpty: true }),
  chat: (id: string) => call<ChatInfo>("GET", `/api/chats/${id}`),
  rename: (id: string, title: string) => call<{ title: string }>("POST", `/api/chats/${id}/title`, { title }),
  archive: (id: string, archived: boolean) => call<unknown>("POST", `/api/chats/${id}/archive`, { archived }),
  deleteChat: (id: string) => call<{ deleted: string; keptDays: number }>("DELETE", `/api/chats/${id}`),
  trash: () => call<{ chats: Trashed[]; keptDays: number }>("GET", "/api/trash"),
  restore: (id: string) => call<{ restored: string }>("POST", `/api/trash/${encodeURIComponent(id)}/restore`),
  pickModel: (id: string, provider: string | null) => call<unknown>("POST", `/api/chats/${id}/model`, { provider }),
  retry: (id: string) => call<{ seq: number }>("POST", `/api/chats/${id}/retry`),
  regenerate: (id: string) => call<{ seq: number }>("POST", `/api/chats/${id}/regenerate`),
  /** Puts back the files a turn changed (`turn`), or undoes an undo. */
  undo: (id: string, target: { turn: number } | { undo: number }) =>
    call<{ turn: number; restored: { path: string; removed: boolean }[]; left: { path: string; why: string }[] }>("POST", `/api/chats/${id}/undo`, target),
  resend: (id: string, text: string, replaces: number) =>
    call<{ seq: number }>("POST", `/api/chats/${id}/messages`, { text, replaces }),
  providers: () => call<{ providers: Provider[]; default: string | null; engine: string }>("GET", "/api/providers"),
  events: (id: string, after: number) =>
    call<unknown[]>("GET", `/api/chats/${id}/events?after=${after}&limit=10000`),
  post: (id: string, text: string) =>
    call<{ seq: number; queued: boolean }>("POST", `/api/chats/${id}/messages`, { text }),
  answer: (id: string, ask: string, answer: "once" | "always" | "deny", covers?: "tool" | "program") =>
    call<unknown>("POST", `/api/chats/${id}/permissions/${ask}`, covers ? { answer, covers } : { answer }),
  setMode: (id: string, mode: Mode) => call<unknown>("POST", `/api/chats/${id}/mode`, { mode }),
  stop: (id: string) => call<{ stopped: boolean }>("POST", `/api/chats/${id}/stop`),
  stopHolding: (id: string, skill: string) =>
    call<unknown>("POST", `/api/chats/${id}/skills/${encodeURIComponent(skill)}/stop-holding`),
  skills: () => call<Skill[]>("GET", "/api/skills"),
  /** Takes back an "always" in force in a chat. */
  revokeGrant: (id: string, key: string) => call<{ revoked: string }>("DELETE", `/api/chats/${id}/grants/${encodeURIComponent(key)}`),
  /** Takes a file's mark off for later readers (a person only). */
  clearMark: (path: string) => call<{ path: string; cleared: boolean }>("POST", "/api/marks/clear", { path }),
};
