import { useState } from "preact/hooks";
import type { ToolEntry } from "../events";
import { api } from "../api";
import { outcome, toolName } from "../words";
import { Scrolls } from "./Scrolls";

function Diff({ text }: { text: string }) {
  return (
    <Scrolls class="diff" text={text} label="The change, line by line">
      {text.split("\n").map((line, i) => (
        <span key={i} class={line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : ""}>
          {line}
          {"\n"}
        </span>
      ))}
    </Scrolls>
  );
}

function reviewSays(r: { outcome: string; reason?: string; problem?: string }): string {
  const why = r.reason ? `: ${r.reason}` : "";
  switch (r.outcome) {
    case "allowed":
      return `Auto mode's reviewer allowed this once${why}`;
    case "rejected":
      return `Auto mode's reviewer turned this down${why}`;
    case "exhausted":
      return "Turned down without review: the reviewer's budget for this turn ran out.";
    default:
      return r.problem ? `Left to you (${r.problem}).` : `Auto mode's reviewer left this to you${why}`;
  }
}

/** The hosts a sealed command reached, as its box saw them (`reached_hosts`,
 *  stored snake_case in the chat's log). Nothing is said when the box didn't
 *  watch (unsealed) or the command reached nothing. */
function Reached({ detail }: { detail: Record<string, unknown> }) {
  const hosts = Array.isArray(detail.reached_hosts) ? detail.reached_hosts.filter((h): h is string => typeof h === "string") : [];
  if (detail.network_observed !== true || hosts.length === 0) return null;
  return <p class="meta reached">Downloaded from {hosts.join(", ")}</p>;
}

/** A file this call read that carries a mark: what its writer had read,
 *  and the owner's way to clear it. Clearing takes the mark off the file
 *  for later readers; this chat stays marked. */
function FileMark({ path, what }: { path: string; what: string }) {
  const [state, setState] = useState<"marked" | "clearing" | "cleared" | "none" | string>("marked");
  const name = path.split("/").pop() || path;
  const clear = async () => {
    if (!confirm(`Clear the mark on ${name}? Chats that read it from now on won't be marked. This chat stays marked.`)) return;
    setState("clearing");
    try {
      const r = await api.clearMark(path);
      setState(r.cleared ? "cleared" : "none");
    } catch (e) {
      setState(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <p class="meta file-mark">
      <span>
        Reading {name} marked this chat. It came from {what}.
      </span>{" "}
      {state === "marked" && (
        <button type="button" class="link" onClick={clear}>
          Clear its mark
        </button>
      )}
      {state === "clearing" && <span>Clearing…</span>}
      {state === "cleared" && <span>Cleared: reading {name} no longer marks a chat. This chat stays marked.</span>}
      {state === "none" && <span>{name} carries no mark now.</span>}
      {!["marked", "clearing", "cleared", "none"].includes(state) && <span role="alert">{state}</span>}
    </p>
  );
}

/** One tool call and its result: a command with its output and exit code, a
 *  file change with its diff, a page read with its address. */
export function ToolCard({ entry, chat }: { entry: ToolEntry; chat?: string }) {
  const d = entry.detail ?? {};
  const input = entry.input;
  const out = outcome(entry);
  // What didn't run has no output of its own: what the model was told is
  // for the model, and the badge says what happened.
  const done = entry.ok !== undefined && out.ran;
  const status = out.tone;
  let head: string;
  let body = null;
  switch (entry.tool) {
    case "run_command": {
      head = String(input.command ?? "");
      const exit = d.exit_code ?? d.exitCode;
      body = (
        <>
          {done && <Scrolls class="output" text={entry.output ?? ""} label="What the command printed" />}
          {done && exit !== undefined && (
            <p class="meta">
              {d.sealed === false ? "not sealed" : d.sealed ? "sealed" : ""}
              {typeof (d.duration_ms ?? d.durationMs) === "number" ? ` · ${d.duration_ms ?? d.durationMs} ms` : ""}
            </p>
          )}
          {done && <Reached detail={d} />}
        </>
      );
      break;
    }
    case "write_file":
    case "edit_file":
      head = String(d.path ?? input.path ?? "");
      body = typeof d.diff === "string" ? <Diff text={d.diff} /> : done ? <Scrolls class="output" text={entry.output ?? ""} label="What came back" /> : null;
      break;
    case "web_fetch":
      head = String(d.final_url ?? d.finalUrl ?? input.url ?? "");
      body = done ? (
        <p class="meta">
          {d.status ? `${d.status} · ` : ""}
          {typeof d.bytes === "number" ? `${d.bytes} bytes` : entry.output?.slice(0, 200)}
          {(d.final_url ?? d.finalUrl) && (d.final_url ?? d.finalUrl) !== input.url ? ` · from ${String(input.url)}` : ""}
        </p>
      ) : null;
      break;
    case "browser_open":
    case "browser_snapshot":
    case "browser_click":
    case "browser_type":
    case "browser_screenshot":
    case "browser_back":
      head = String(d.url ?? input.url ?? input.ref ?? "");
      body = done ? (
        <>
          {typeof d.screenshot === "string" && chat && (
            <img
              class="browser-shot"
              src={`/api/chats/${encodeURIComponent(chat)}/browser/${encodeURIComponent(d.screenshot.replace(/^browser\//, ""))}`}
              alt={`The browser's page${d.title ? `, ${String(d.title)}` : ""}`}
              loading="lazy"
            />
          )}
          <p class="meta">{d.title ? String(d.title) : ""}</p>
        </>
      ) : null;
      break;
    default:
      head = Object.values(input).filter((v) => typeof v === "string").join(" · ").slice(0, 200);
      body = done ? <Scrolls class="output short" text={entry.output ?? ""} label="What came back" /> : null;
  }
  return (
    <details class={`tool ${status}`} open={entry.tool === "run_command" || status === "failed"}>
      <summary>
        <span class="tool-name" title={entry.tool}>
          {toolName(entry.tool)}
        </span> <code class="tool-head">{head}</code>
        <span class={`badge ${status}`}>{out.says}</span>
      </summary>
      {entry.review && <p class={`meta review ${entry.review.outcome}`}>{reviewSays(entry.review)}</p>}
      {body}
      {entry.fileMarks?.map((m) => <FileMark key={m.path} path={m.path} what={m.what} />)}
    </details>
  );
}
