// The chat's log as the page sees it: stored events (exactly as the server
// wrote them) folded into what the transcript shows. The server's folds
// are the source of truth; this one only draws.

export interface Event {
  seq: number;
  id: string;
  at: string;
  type: string;
  [field: string]: unknown;
}

export interface Provenance {
  part: string;
  kind: string;
  from: "owner" | "read" | "nowhere";
  call?: string;
  source?: string;
}

export type Action =
  | { kind: "look-around"; paths: string[] }
  | { kind: "file-change"; path: string; inside: boolean }
  | { kind: "command"; command: string; programs: string[]; unsealed: boolean; leaves_box?: boolean }
  | { kind: "page-read"; url: string; host: string }
  | { kind: "search"; query: string }
  | { kind: "fetch-sends"; url: string; host: string }
  | { kind: "integration"; tool: string; read_only: boolean }
  | { kind: "use-skill"; skill: string }
  | { kind: "delegate"; task: string }
  | { kind: "artifact"; artifact?: string; what: string }
  | { kind: "memory"; op: "remember" | "forget" | "recall"; what: string };

export interface Question {
  ask: string;
  seq: number;
  call: string;
  tool: string;
  action: Action;
  why: string[];
  question: string;
  note?: string;
  always?: string[];
  /** The narrower choice for a command: this program (and subcommand) only. */
  narrow?: string[];
  provenance: Provenance[];
  told?: string;
  input?: unknown;
  /** Set once answered or ended. */
  answer?: string;
  by?: string;
  /** An "always" for the narrower choice. */
  narrowed?: boolean;
  ended?: string;
}

export interface ToolEntry {
  call: string;
  tool: string;
  input: Record<string, unknown>;
  ok?: boolean;
  output?: string;
  detail?: Record<string, unknown>;
  /** What Auto mode's reviewer made of it. */
  review?: { outcome: string; reason?: string; problem?: string };
  /** The question it asked, when it asked one. */
  question?: Question;
  /** Files it read that carry a mark (the ledger's): each file's path and
   *  what the chat that wrote it had read. */
  fileMarks?: { path: string; what: string }[];
}

export type Entry = (
  | { type: "message"; seq: number; from: string; text: string; name?: string; app?: string; replaces?: number; retry?: boolean }
  | { type: "reply"; seq: number; turn: number; text: string; cost?: { amount: number; currency: string; chat: number } }
  | { type: "tool"; seq: number; entry: ToolEntry }
  | { type: "question"; seq: number; q: Question }
  | { type: "marked"; seq: number; says: string }
  | { type: "skill"; seq: number; skill: string; says: string }
  | { type: "hold-ended"; seq: number; skill: string }
  | { type: "mode"; seq: number; mode: string; marked: boolean }
  | { type: "artifact"; seq: number; title: string; kind: string; action: string; artifact: string; version: number; navigates: boolean }
  | { type: "turn-error"; seq: number; text: string; stopped?: boolean }
  | { type: "memory"; seq: number; says: string; held: boolean }
  | { type: "apps-not-ready"; seq: number; says: string }
  | { type: "changes"; seq: number; turn: number; files: string[] }
  | { type: "restored"; seq: number; turn: number; undoOf?: number; restored: { path: string; removed: boolean }[]; left: { path: string; why: string }[]; by: string }
) & {
  /** Part of an earlier try that a later message took the place of (Edit
   *  and resend, Retry): kept in the log, shown folded. */
  old?: boolean;
};

export interface HoldLine {
  skill: string;
  permissions: { commands: string[]; files: string; web: string; integrations: string[] } | null;
}

export interface Folded {
  entries: Entry[];
  lastSeq: number;
  openTurn: number | null;
  mode: string;
  holds: HoldLine[];
  pending: Question[];
  marked: boolean;
  /** The owner's latest message (what Edit and resend replaces). */
  lastOwner: number | null;
  /** How the latest turn ended (null while one runs or before any). */
  lastEnd: string | null;
  title: string | null;
  provider: string | null;
}

const s = (v: unknown): string => (typeof v === "string" ? v : "");

/** The line for apps still connecting when a turn began. */
function notReady(names: string[]): string {
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  const were = names.length === 1 ? "was" : "were";
  return `${list} ${were} still connecting, so ${names.length === 1 ? "its" : "their"} tools aren't in this answer. Ask again in a moment, or see Settings → Connections.`;
}

/** Folds events into the transcript. Events must be in `seq` order. */
export function fold(events: Event[]): Folded {
  const entries: Entry[] = [];
  const tools = new Map<string, ToolEntry>();
  const questions = new Map<string, Question>();
  let holds: HoldLine[] = [];
  let openTurn: number | null = null;
  let mode = "ask";
  let marked = false;
  let lastSeq = 0;
  let lastOwner: number | null = null;
  let lastEnd: string | null = null;
  let title: string | null = null;
  let renamed = false;
  let provider: string | null = null;
  const replaced: [number, number][] = [];
  // Each turn's files kept for undo, in the order first changed.
  const kept = new Map<number, string[]>();
  // What each turn's requests cost, and the chat so far.
  const costs = new Map<number, { amount: number; currency: string }>();
  let spent = 0;
  for (const e of events) {
    lastSeq = Math.max(lastSeq, e.seq);
    switch (e.type) {
      case "chat.created":
        mode = s(e.mode) || mode;
        break;
      case "message": {
        const replaces = typeof e.replaces === "number" && e.replaces < e.seq ? e.replaces : undefined;
        if (replaces !== undefined) replaced.push([replaces, e.seq]);
        if (e.from === "owner") {
          lastOwner = e.seq;
          if (!title && !renamed) title = s(e.text);
        }
        entries.push({
          type: "message",
          seq: e.seq,
          from: s(e.from),
          text: s(e.text),
          name: e.name as string | undefined,
          app: e.app as string | undefined,
          replaces,
          retry: entries.some((x) => x.type === "message" && x.seq === replaces && x.text === e.text),
        });
        break;
      }
      case "chat.renamed":
        title = s(e.title);
        renamed = true;
        break;
      case "model.changed":
        provider = typeof e.provider === "string" ? e.provider : null;
        break;
      case "turn.started": {
        openTurn = e.seq;
        lastEnd = null;
        const late = Array.isArray(e.not_ready) ? e.not_ready.filter((n): n is string => typeof n === "string") : [];
        if (late.length > 0) entries.push({ type: "apps-not-ready", seq: e.seq, says: notReady(late) });
        break;
      }
      case "turn.ended":
        if (openTurn === e.turn) openTurn = null;
        lastEnd = s(e.reason);
        if (e.reason === "error" || e.reason === "interrupted") {
          entries.push({ type: "turn-error", seq: e.seq, text: s(e.error) || "The turn ended early." });
        } else if (e.reason === "stopped") {
          // A reply cut off by Stop says so, with Retry like a failed one.
          entries.push({ type: "turn-error", seq: e.seq, text: "Stopped.", stopped: true });
        }
        break;
      case "reply":
        entries.push({ type: "reply", seq: e.seq, turn: Number(e.turn), text: s(e.text) });
        break;
      case "tool.called": {
        const entry: ToolEntry = { call: s(e.call), tool: s(e.tool), input: (e.input ?? {}) as Record<string, unknown> };
        tools.set(entry.call, entry);
        entries.push({ type: "tool", seq: e.seq, entry });
        break;
      }
      case "tool.finished": {
        const entry = tools.get(s(e.call));
        if (entry) {
          entry.ok = Boolean(e.ok);
          entry.output = s(e.output);
          entry.detail = (e.detail ?? undefined) as Record<string, unknown> | undefined;
        }
        break;
      }
      case "review.judged": {
        const entry = tools.get(s(e.call));
        if (entry) entry.review = { outcome: s(e.outcome), reason: e.reason ? s(e.reason) : undefined, problem: e.problem ? s(e.problem) : undefined };
        break;
      }
      case "permission.requested": {
        const q: Question = {
          ask: s(e.ask),
          seq: e.seq,
          call: s(e.call),
          tool: s(e.tool),
          action: e.action as Action,
          why: (e.why as string[]) ?? [],
          question: s(e.question),
          note: e.note as string | undefined,
          always: e.always as string[] | undefined,
          narrow: e.narrow as string[] | undefined,
          provenance: (e.provenance as Provenance[]) ?? [],
          told: e.told as string | undefined,
          input: tools.get(s(e.call))?.input,
        };
        questions.set(q.ask, q);
        // The card stays above the output it allowed: the call's own card
        // moves below its question.
        const tool = tools.get(q.call);
        const at = tool ? entries.findIndex((x) => x.type === "tool" && x.entry === tool) : -1;
        const moved = at >= 0 ? entries.splice(at, 1)[0] : null;
        entries.push({ type: "question", seq: e.seq, q });
        if (tool) tool.question = q;
        if (moved) entries.push(moved);
        break;
      }
      case "permission.answered": {
        const q = questions.get(s(e.ask));
        if (q && !q.answer && !q.ended) {
          q.answer = s(e.answer);
          q.by = s(e.by);
          q.narrowed = e.narrow === true;
        }
        break;
      }
      case "permission.ended": {
        const q = questions.get(s(e.ask));
        if (q && !q.answer) q.ended = s(e.reason);
        break;
      }
      case "mode.changed":
        mode = s(e.mode);
        entries.push({ type: "mode", seq: e.seq, mode, marked });
        break;
      case "taint":
        marked = true;
        if (typeof e.path === "string" && e.path) {
          const tool = tools.get(s(e.call));
          if (tool) (tool.fileMarks ??= []).push({ path: e.path, what: s(e.what) });
        }
        if (typeof e.says === "string" && e.says) {
          entries.push({ type: "marked", seq: e.seq, says: e.says });
        }
        break;
      case "skill.used": {
        const skill = s(e.skill);
        holds.push({ skill, permissions: (e.permissions as HoldLine["permissions"]) ?? null });
        const says = typeof e.says === "string" && e.says ? e.says : `Using the ${skill} skill.`;
        entries.push({ type: "skill", seq: e.seq, skill, says });
        break;
      }
      case "skill.hold.ended": {
        const skill = s(e.skill);
        holds = holds.filter((h) => h.skill !== skill);
        entries.push({ type: "hold-ended", seq: e.seq, skill });
        break;
      }
      case "memory": {
        const text = `"${s(e.text)}"`;
        const mine = s(e.by) === "owner";
        const says =
          e.action === "held"
            ? `Held a memory for you to check before it's used: ${text}`
            : e.action === "remembered"
              ? `Remembered ${text}`
              : e.action === "kept"
                ? `${mine ? "You kept" : "Kept"} ${text}`
                : e.action === "edited"
                  ? `${mine ? "You changed" : "Changed"} a memory to ${text}`
                  : `${mine ? "You forgot" : "Forgot"} ${text}`;
        entries.push({ type: "memory", seq: e.seq, says, held: e.action === "held" });
        break;
      }
      case "memories.used": {
        const n = Array.isArray(e.memories) ? e.memories.length : 0;
        if (n > 0) entries.push({ type: "memory", seq: e.seq, says: `Given ${n === 1 ? "1 memory" : `${n} memories`} you kept.`, held: false });
        break;
      }
      case "cost": {
        const amount = typeof e.amount === "number" ? e.amount : 0;
        const turn = Number(e.turn);
        const was = costs.get(turn);
        costs.set(turn, { amount: (was?.amount ?? 0) + amount, currency: s(e.currency) });
        spent += amount;
        const last = [...entries].reverse().find((x) => x.type === "reply" && x.turn === turn);
        if (last && last.type === "reply") last.cost = { ...costs.get(turn)!, chat: spent };
        break;
      }
      case "file.kept": {
        const files = kept.get(Number(e.turn)) ?? [];
        if (!files.includes(s(e.path))) files.push(s(e.path));
        kept.set(Number(e.turn), files);
        break;
      }
      case "files.left": {
        const files = kept.get(Number(e.turn)) ?? [];
        if (files.length > 0) entries.push({ type: "changes", seq: e.seq, turn: Number(e.turn), files });
        break;
      }
      case "files.restored": {
        const list = <T,>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
        entries.push({
          type: "restored",
          seq: e.seq,
          turn: Number(e.turn),
          undoOf: typeof e.undo_of === "number" ? e.undo_of : undefined,
          restored: list<{ path: string; after: string | null }>(e.restored).map((r) => ({ path: s(r.path), removed: r.after === null || r.after === undefined })),
          left: list<{ path: string; why: string }>(e.left).map((l) => ({ path: s(l.path), why: s(l.why) })),
          by: s(e.by),
        });
        break;
      }
      case "artifact":
        // The artifact's own card stands for the call that made it: the
        // raw artifact_create card would only repeat it as JSON.
        if (e.call) {
          const made = entries.findIndex((x) => x.type === "tool" && x.entry.call === s(e.call));
          if (made >= 0) entries.splice(made, 1);
        }
        entries.push({
          type: "artifact",
          seq: e.seq,
          title: s(e.title),
          kind: s(e.kind),
          action: s(e.action),
          artifact: s(e.artifact),
          version: Number(e.version),
          navigates: Boolean(e.navigates),
        });
        break;
    }
  }
  // One line per skill, in the order they came in.
  const seen = new Set<string>();
  holds = holds.filter((h) => (seen.has(h.skill) ? false : (seen.add(h.skill), true)));
  const pending = [...questions.values()].filter((q) => !q.answer && !q.ended);
  if (replaced.length) {
    for (const x of entries) if (replaced.some(([from, to]) => x.seq >= from && x.seq < to)) x.old = true;
  }
  return { entries, lastSeq, openTurn, mode, holds, pending, marked, lastOwner, lastEnd, title, provider };
}
