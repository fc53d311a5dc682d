// The words the page uses for modes, actions and outcomes, in the records'
// voice. Each says what happens, and only what happens.

import type { Action, Question, ToolEntry } from "./events";
import type { Mode } from "./api";

export const MODES: { mode: Mode; name: string; says: string; warning?: string }[] = [
  { mode: "ask", name: "Ask", says: "Asks before running commands or changing files." },
  { mode: "edits", name: "Accept edits", says: "Changes files in the work folder without asking; asks before commands." },
  {
    mode: "auto",
    name: "Auto",
    says: "Runs looking and building on its own; for other steps a reviewer checks what you asked for first, and asks you when unsure.",
  },
  {
    mode: "full",
    name: "Full trust",
    says: "Runs commands and changes files without asking, even after it reads a page (what it read stays on the record). Still asks before changing files that run by themselves later.",
    warning: "A page it reads could trick it. For a chat that reads strangers' pages, pick Ask.",
  },
];

export function modeName(mode: string): string {
  return MODES.find((m) => m.mode === mode)?.name ?? (mode === "auto" ? "Auto" : mode);
}

/** The transcript's line when the mode changes: in a chat that has read
 *  something, Full trust says that reading won't stop it. */
export function modeLine(mode: string, marked: boolean, others: boolean): string {
  const name = `Mode: ${modeName(mode)}.`;
  if (mode !== "full" || !marked) return name;
  return others
    ? `${name} Someone else wrote in this chat, so I still check with you before acting on what it read.`
    : `${name} What this chat read won't make me stop to ask; it stays on the record.`;
}

/** The last part of a path: "notes.md". */
const base = (path: string) => path.replace(/\/+$/, "").split("/").pop() || path;

/** An address shortened to its host and a hint of the rest: "files.example/…". */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    const rest = u.pathname + u.search + u.hash;
    return rest && rest !== "/" ? `${u.host}/…` : u.host;
  } catch {
    return url.length > 60 ? `${url.slice(0, 57)}…` : url;
  }
}

/** The card's headline, in plain names: the verb, and what it acts on when
 *  that is short. The command or address itself is shown once, beside it. */
export function wants(action: Action | undefined, tool: string): string {
  if (!action) return `Use ${tool}`;
  switch (action.kind) {
    case "command":
      return action.leaves_box ? "Run outside the box" : action.unsealed ? "Run, not sealed" : "Run";
    case "file-change":
      return `Change ${base(action.path)}`;
    case "look-around":
      return "Look at files";
    case "page-read":
      return `Fetch ${shortUrl(action.url)}`;
    case "search":
      return `Search the web for “${action.query}”`;
    case "fetch-sends":
      return `Send to ${shortUrl(action.url)}`;
    case "integration":
      return action.read_only ? `Read with ${action.tool}` : `Use ${action.tool}`;
    case "use-skill":
      return `Use the ${action.skill} skill`;
    case "delegate":
      return "Hand a task to a helper";
    case "artifact":
      return "Make something beside the chat";
    case "memory":
      return action.op === "forget" ? "Forget a memory" : action.op === "recall" ? "Look through memories" : "Remember something";
  }
}

/** The full thing it acts on, shown once: the command, the path, the address. */
export function subject(action: Action | undefined): string | null {
  if (!action) return null;
  switch (action.kind) {
    case "command":
      return action.command;
    case "file-change":
      return action.path;
    case "look-around":
      return action.paths.join("\n");
    case "page-read":
    case "fetch-sends":
      return action.url;
    case "delegate":
      return action.task;
    case "memory":
      return action.what;
    default:
      return null;
  }
}

export function sourceName(source: string): string {
  return (
    { conch: "Conch", openclaw: "OpenClaw", hermes: "Hermes", claude: "Claude Code", project: "This project" } as Record<string, string>
  )[source] ?? source;
}

/** What the wider "always" covers, in words: "any command". */
export function covers(keys: string[]): string {
  const wide = keys.map((k) => k.split("@")[0]).map((k) => (k.includes(":") ? k.split(":", 2) : ["", k]));
  const out: string[] = [];
  for (const [scope, tool] of wide) {
    if (scope === "box" && wide.some(([s, t]) => t === tool && s !== "box")) continue;
    const what =
      tool === "run_command"
        ? "any command"
        : tool === "write_file" || tool === "edit_file"
          ? "any file change"
          : tool === "web_fetch"
            ? "any address it puts together"
            : `${tool}, any way it's used`;
    const said = scope === "box" ? `${what} outside the box` : what;
    if (!out.includes(said)) out.push(said);
  }
  return out.join(", ");
}

/** What the narrower "always" covers: "git push …". */
export function narrowCovers(keys: string[]): string | null {
  const sig = keys[0]?.split("@")[1];
  return sig ? `${sig} …` : null;
}

/** Why Conch refused a call, from its first rule id, for the owner. */
function refusedBecause(rule: string): string {
  const family = rule.split(".")[0];
  if (family === "protected") return "Conch's own folder and your keys are off limits";
  if (rule === "policy.read-only") return "you set this tool to read-only";
  if (family === "policy") return "you turned this tool off";
  if (family === "review") return "Auto mode's reviewer turned it down";
  if (family === "bind") return "it changed after it was approved";
  if (family === "hold") return "it's outside the skill's list";
  return "Conch refused it";
}

export type Outcome = { says: string; tone: "running" | "ok" | "failed" | "refused"; ran: boolean };

/** How a call came out, following the event and not the tool: a command
 *  that ran and exited 1 "ran, exit code 1"; one the owner refused "not run:
 *  you said no". Text written for the model is never what this says. */
export function outcome(entry: ToolEntry): Outcome {
  const q: Question | undefined = entry.question;
  const d = entry.detail ?? {};
  if (entry.ok === undefined) {
    if (q?.ended) return { says: q.ended === "stopped" ? "not run: stopped" : "not run: Conch restarted", tone: "refused", ran: false };
    if (q && !q.answer) return { says: "needs you", tone: "running", ran: false };
    return { says: "running…", tone: "running", ran: false };
  }
  if (q?.answer === "deny") {
    return { says: `not run: ${q.by && q.by !== "owner" ? q.by : "you"} said no`, tone: "refused", ran: false };
  }
  if (q?.ended) return { says: "not run: stopped", tone: "refused", ran: false };
  const denied = Array.isArray(d.denied) ? (d.denied as unknown[]) : null;
  if (denied) return { says: `not run: ${refusedBecause(String(denied[0] ?? ""))}`, tone: "refused", ran: false };
  if (d.stopped === true) return { says: "stopped while it ran", tone: "failed", ran: true };
  if (d.timed_out === true) return { says: "ran, stopped when it took too long", tone: "failed", ran: true };
  const exit = d.exit_code ?? d.exitCode;
  if (typeof exit === "number") return { says: `ran, exit code ${exit}`, tone: exit === 0 ? "ok" : "failed", ran: true };
  if (typeof d.signal === "number") return { says: `ran, ended by signal ${d.signal}`, tone: "failed", ran: true };
  if (entry.ok) return { says: "done", tone: "ok", ran: true };
  if ((entry.output ?? "").startsWith("The owner said no")) return { says: "not run: you said no", tone: "refused", ran: false };
  return { says: "didn't work", tone: "failed", ran: true };
}

/** A tool's plain name for its card: "Command", "Read a page", an app's
 *  tool as "Mail · send" (however an engine spells it). The id stays in
 *  the card's tooltip. */
const TOOL_NAMES: Record<string, string> = {
  run_command: "Command",
  Bash: "Command",
  commandExecution: "Command",
  write_file: "Write a file",
  Write: "Write a file",
  edit_file: "Edit a file",
  Edit: "Edit a file",
  MultiEdit: "Edit a file",
  fileChange: "Change files",
  read_file: "Read a file",
  Read: "Read a file",
  list_files: "List files",
  search_files: "Search files",
  Grep: "Search files",
  Glob: "Find files",
  web_fetch: "Read a page",
  WebFetch: "Read a page",
  web_search: "Search the web",
  WebSearch: "Search the web",
  webSearch: "Search the web",
  browser_open: "Browser · open",
  browser_snapshot: "Browser · read the page",
  browser_click: "Browser · click",
  browser_type: "Browser · type",
  browser_screenshot: "Browser · screenshot",
  browser_back: "Browser · back",
  delegate: "Helper",
  Task: "Helper",
  routine_create: "Make a routine",
  use_skill: "Use a skill",
  Skill: "Use a skill",
};

export function toolName(tool: string): string {
  if (TOOL_NAMES[tool]) return TOOL_NAMES[tool];
  const app = (server: string, name: string) => `${server.charAt(0).toUpperCase()}${server.slice(1)} · ${name.replace(/_/g, " ")}`;
  const mcp = tool.match(/^mcp__(.+?)__(.+)$/);
  if (mcp) return app(mcp[1], mcp[2]);
  const dotted = tool.match(/^([^.]+)\.(.+)$/);
  if (dotted) return app(dotted[1], dotted[2]);
  return tool;
}

/** An amount as a person reads it: `USD 0.0042`, `EUR 5.00`. */
export function money(amount: number, currency: string): string {
  const digits = amount !== 0 && Math.abs(amount) < 0.01 ? 4 : 2;
  return `${currency} ${amount.toFixed(digits)}`;
}
