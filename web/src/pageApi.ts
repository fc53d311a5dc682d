// What only the pages loaded when first shown call: kept out of the first
// page (see main.tsx's lazy parts).
import { art, call, type AccessKey, type ActivityRow, type Backups, type Check, type KeptKey, type Memory, type Repair, type ReviewTotals, type Safety, type Skill, type Tested, type Routine, type Bridge, type Mode } from "./api";

/** A model's price per million tokens. */
export interface Price {
  input: number;
  output: number;
}

/** `GET /api/spending`: the caps, today's spending, each provider's prices. */
export interface Spending {
  currency: string;
  day: number | null;
  chat: number | null;
  routine: number | null;
  today: number;
  providers: { name: string; model: string; prices: Price | null; known: Price | null; used: Price | null; noCap: boolean }[];
}

/** A connection added from the page (`POST /api/apps`): a program with its
 *  arguments, or an address; `secrets` are its variables or headers. */
export interface NewConnection {
  name: string;
  command?: string;
  args?: string[];
  url?: string;
  secrets: Record<string, string>;
}

/** One app as `GET /api/apps` gives it (see docs/apps.md). */
export interface AppView {
  name: string;
  status: { state: string; error?: string } | null;
  /** Off: Conch doesn't start it (an app moved in from another assistant starts off). */
  on: boolean;
  /** What it runs when it starts: `program args…`, or its address. */
  runs: string;
  tools: {
    name: string;
    qualified: string;
    title: string | null;
    description: string | null;
    readOnly: boolean;
    choice: string;
    standing: string;
    before?: { description?: string | null } | null;
  }[];
}

export const pageApi = {
  apps: () => call<{ apps: AppView[] }>("GET", "/api/apps"),
  addApp: (body: NewConnection) => call<AppView>("POST", "/api/apps", body),
  setAppOn: (app: string, on: boolean) => call<unknown>("POST", `/api/apps/${encodeURIComponent(app)}`, { on }),
  chooseAppTool: (app: string, tool: string, choice: string) =>
    call<unknown>("POST", `/api/apps/${encodeURIComponent(app)}/tools/${encodeURIComponent(tool)}`, { choice }),
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
  contacts: () => call<{ contacts: string[] }>("GET", "/api/settings/contacts"),
  setContacts: (contacts: string[]) => call<{ contacts: string[] }>("PUT", "/api/settings/contacts", { contacts }),
  setSafety: (change: Partial<Safety>) => call<Safety>("POST", "/api/settings/safety", change),
  confirmPassword: (password: string) => call<unknown>("POST", "/api/session/confirm", { password }),
  checkup: () => call<{ checks: Check[] }>("GET", "/api/security"),
  repairLook: () => call<Repair>("GET", "/api/security/repair"),
  repair: () => call<Repair>("POST", "/api/security/repair"),
  backups: () => call<Backups>("GET", "/api/backups"),
  makeBackup: (passphrase?: string) =>
    call<{ name: string; files: number; chats: number; says: string }>("POST", "/api/backups", passphrase ? { passphrase } : {}),
  setBackupSchedule: (every: Backups["schedule"]["every"], keep: number, passphrase?: string) =>
    call<unknown>("POST", "/api/backups/schedule", passphrase === undefined ? { every, keep } : { every, keep, passphrase }),
  restoreBackup: (name: string, passphrase?: string) =>
    call<{ into: string; start: string; says: string; chats: number }>(
      "POST",
      `/api/backups/${encodeURIComponent(name)}/restore`,
      passphrase ? { passphrase } : {},
    ),
  passwords: () => call<{ keys: KeptKey[] }>("GET", "/api/passwords").then((r) => r.keys),
  replaceProviderKey: (name: string, key: string) =>
    call<unknown>("PUT", `/api/passwords/providers/${encodeURIComponent(name)}`, { key }),
  removeProviderKey: (name: string) => call<unknown>("DELETE", `/api/passwords/providers/${encodeURIComponent(name)}`),
  removeAppTokens: (name: string) => call<unknown>("DELETE", `/api/passwords/apps/${encodeURIComponent(name)}`),
  signOut: () => call<unknown>("DELETE", "/api/session"),
  signOutEverywhere: () => call<{ ended: number }>("DELETE", "/api/sessions"),
  spending: () => call<Spending>("GET", "/api/spending"),
  setCaps: (c: { currency: string; day?: number; chat?: number; routine?: number }) => call<Spending>("POST", "/api/spending", c),
  setPrices: (name: string, body: { prices?: Price | null; noCap?: boolean }) =>
    call<Spending>("POST", `/api/providers/${encodeURIComponent(name)}/prices`, body),
  addProvider: (p: { name: string; kind: string; baseUrl?: string; model: string; key?: string }) =>
    call<{ name: string; default: boolean; hasKey: boolean }>("POST", "/api/providers", p),
  removeProvider: (name: string) => call<unknown>("DELETE", `/api/providers/${encodeURIComponent(name)}`),
  defaultProvider: (name: string) => call<unknown>("POST", "/api/providers/default", { name }),
  testProvider: (name: string) => call<Tested>("POST", `/api/providers/${encodeURIComponent(name)}/test`),
  skill: (id: string) => call<Skill>("GET", `/api/skills/${encodeURIComponent(id)}`),
  skillFolders: () => call<SkillFolder[]>("GET", "/api/skill-folders"),
  enableSkill: (id: string, hash?: string) =>
    call<Skill>("POST", `/api/skills/${encodeURIComponent(id)}/enable`, hash ? { hash } : {}),
  disableSkill: (id: string) => call<Skill>("POST", `/api/skills/${encodeURIComponent(id)}/disable`),
  memories: () => call<{ memories: Memory[]; warning?: string }>("GET", "/api/memories"),
  addMemory: (text: string) => call<{ memory: Memory; new: boolean }>("POST", "/api/memories", { text }),
  editMemory: (id: string, text: string) => call<{ memory: Memory }>("PATCH", `/api/memories/${encodeURIComponent(id)}`, { text }),
  keepMemory: (id: string) => call<{ memory: Memory }>("POST", `/api/memories/${encodeURIComponent(id)}/keep`),
  forgetMemory: (id: string) => call<unknown>("DELETE", `/api/memories/${encodeURIComponent(id)}`),
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

/** A folder Conch reads skills from (`GET /api/skill-folders`). */
export interface SkillFolder {
  folder: string;
  app: string;
  /** Conch's own: where a person adds a skill. */
  own: boolean;
  exists: boolean;
}
