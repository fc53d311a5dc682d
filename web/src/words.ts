// The words the page uses for modes and actions, in the records' voice.

import type { Action } from "./events";
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
    says: "Runs commands and changes files without asking, except what it reads makes it check with you.",
    warning: "A page it reads could try to trick it. Conch still checks before acting on what it read.",
  },
];

export function modeName(mode: string): string {
  return MODES.find((m) => m.mode === mode)?.name ?? (mode === "auto" ? "Auto" : mode);
}

/** What the call would do, as the card's headline. */
export function wants(action: Action | undefined, tool: string): string {
  if (!action) return `Use ${tool}`;
  switch (action.kind) {
    case "command":
      return action.leaves_box ? "Run a command outside the box" : action.unsealed ? "Run a command (not sealed)" : "Run a command";
    case "file-change":
      return action.inside ? "Change a file" : "Change a file outside the work folder";
    case "look-around":
      return "Look at files";
    case "page-read":
      return "Open a page";
    case "search":
      return "Search the web";
    case "fetch-sends":
      return "Send a request";
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

/** The full thing it wants to do: the command, the path, the address. */
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
    case "search":
      return action.query;
    case "integration":
      return action.tool;
    case "use-skill":
      return action.skill;
    case "delegate":
      return action.task;
    case "artifact":
      return action.artifact ?? action.what;
    case "memory":
      return action.what;
  }
}

export function sourceName(source: string): string {
  return (
    { conch: "Conch", openclaw: "OpenClaw", hermes: "Hermes", claude: "Claude Code", project: "This project" } as Record<string, string>
  )[source] ?? source;
}

/** What an "always" key covers, in words. */
export function covers(key: string): string {
  const [scope, tool] = key.includes(":") ? key.split(":", 2) : ["", key];
  const name = tool === "run_command" ? "commands" : tool === "web_fetch" ? "requests that send data" : tool;
  if (scope === "read") return `${name}, now that this chat has read something`;
  if (scope === "box") return `${name} outside the box`;
  return name;
}
