import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Entry, Question } from "../events";
import { copy } from "../copy";
import { modeLine, money } from "../words";
import { kindWord } from "../artifacts/kinds";
import { navigate } from "../router";
import { QuestionCard, type Covers } from "./QuestionCard";
import { ToolCard } from "./ToolCard";
import { lazyPart } from "../artifacts/lazy";

// Markdown (marked and DOMPurify) loads after the first page: a reply shows
// as plain text for the moment before it arrives.
const useMarkdownPart = lazyPart(() => import("../markdown"));

// Edit and resend's box is loaded when first opened.
const useEditing = lazyPart(() => import("./Editing"));

function Editing(props: { text: string; onSend: (text: string) => Promise<void>; onCancel: () => void }) {
  const part = useEditing();
  return part ? <part.Editing {...props} /> : null;
}

/** A button that copies `text` and says so for a moment. */
function CopyButton({ text, label }: { text: () => string; label: string }) {
  const [said, setSaid] = useState<string | null>(null);
  return (
    <button
      class="small copy"
      aria-label={label}
      onClick={() =>
        copy(text()).then(
          () => setSaid("Copied"),
          (e) => setSaid(e instanceof Error ? e.message : "Couldn't copy"),
        ).finally(() => setTimeout(() => setSaid(null), 1500))
      }
    >
      {said ?? "Copy"}
    </button>
  );
}

/** A reply: Markdown, each code block with its own Copy. */
function Markdown({ text }: { text: string }) {
  const md = useMarkdownPart();
  const html = useMemo(() => (md ? md.renderMarkdown(text) : null), [md, text]);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    for (const pre of box.current?.querySelectorAll("pre") ?? []) {
      if (pre.parentElement?.classList.contains("code-block")) continue;
      const wrap = document.createElement("div");
      wrap.className = "code-block";
      pre.replaceWith(wrap);
      wrap.append(pre);
      const button = document.createElement("button");
      button.className = "small copy";
      button.type = "button";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy this code");
      button.addEventListener("click", () => {
        copy(pre.innerText).then(
          () => (button.textContent = "Copied"),
          () => (button.textContent = "Couldn't copy"),
        );
        setTimeout(() => (button.textContent = "Copy"), 1500);
      });
      wrap.append(button);
    }
  }, [html]);
  if (html === null) {
    return (
      <div class="markdown">
        <p class="plain">{text}</p>
      </div>
    );
  }
  return <div ref={box} class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

export interface TranscriptProps {
  /** The chat's id, for what its cards fetch (a browser screenshot). */
  chat?: string;
  entries: Entry[];
  streaming: Map<number, string>;
  firstPending: string | null;
  onAnswer: (q: Question, a: "once" | "always" | "deny", covers?: Covers) => Promise<void>;
  shown?: { id: string; version: number } | null;
  onOpenArtifact?: (id: string, version: number) => void;
  /** The owner's last message, which Edit and resend replaces. */
  lastOwner?: number | null;
  /** A failed turn can be tried again (shown on the last error line). */
  canRetry?: boolean;
  /** Someone other than the owner wrote in the chat. */
  others?: boolean;
  onRetry?: () => Promise<void>;
  onResend?: (text: string, replaces: number) => Promise<void>;
  /** The last answer ended well and can be made again. */
  canRegenerate?: boolean;
  onRegenerate?: () => Promise<void>;
  /** Put back a turn's files, or undo an undo. */
  onUndo?: (target: { turn: number } | { undo: number }) => Promise<void>;
}

/** A list of files for a line: the names, the first few, then how many more. */
function someFiles(paths: string[]): string {
  const names = paths.map((p) => p.split("/").filter(Boolean).pop() ?? p);
  const shown = names.slice(0, 4).join(", ");
  return names.length > 4 ? `${shown} and ${names.length - 4} more` : shown;
}

const files = (n: number) => (n === 1 ? "1 file" : `${n} files`);

function row(
  e: Entry,
  props: TranscriptProps,
  edit: { at: number | null; set: (at: number | null) => void },
  lastError: number | null,
  lastReply: number | null = null,
) {
  switch (e.type) {
    case "message": {
      const mine = e.from === "owner";
      if (mine && edit.at === e.seq && props.onResend) {
        return (
          <li key={e.seq} class="message from-owner editing-item" data-seq={e.seq}>
            <Editing text={e.text} onCancel={() => edit.set(null)} onSend={(t) => props.onResend!(t, e.seq).then(() => edit.set(null))} />
          </li>
        );
      }
      return (
        <li key={e.seq} class={`message from-${e.from}`} data-seq={e.seq}>
          {!mine && (
            <span class="who">{e.from === "person" ? `${e.name ?? "Someone"}${e.app ? ` on ${e.app}` : ""}` : e.from === "task" ? "A task" : "A routine"}</span>
          )}
          {e.replaces !== undefined && <span class="who">{e.retry ? "Tried again" : "Edited"}</span>}
          <p>{e.text}</p>
          <span class="message-actions">
            <CopyButton text={() => e.text} label="Copy what you wrote" />
            {mine && !e.old && e.seq === props.lastOwner && props.onResend && (
              <button class="small" onClick={() => edit.set(e.seq)}>
                Edit and resend
              </button>
            )}
          </span>
        </li>
      );
    }
    case "reply":
      return (
        <li key={e.seq} class="reply" data-seq={e.seq}>
          <Markdown text={e.text} />
          <span class="message-actions">
            <CopyButton text={() => e.text} label="Copy the answer" />
            {e.cost && (
              <span class="quiet cost" title="Estimated from the provider's prices: four characters a token">
                This answer: {money(e.cost.amount, e.cost.currency)} · this chat: {money(e.cost.chat, e.cost.currency)}
              </span>
            )}
            {e.seq === lastReply && props.canRegenerate && props.onRegenerate && (
              <button class="small" onClick={() => void props.onRegenerate!()}>
                Regenerate
              </button>
            )}
          </span>
        </li>
      );
    case "tool":
      return (
        <li key={e.seq} class="tool-item" data-seq={e.seq}>
          <ToolCard entry={e.entry} chat={props.chat} />
        </li>
      );
    case "question":
      return (
        <li key={e.seq} class="question-item" data-seq={e.seq}>
          <QuestionCard q={e.q} first={e.q.ask === props.firstPending} onAnswer={(a, c) => props.onAnswer(e.q, a, c)} />
        </li>
      );
    case "apps-not-ready":
      return (
        <li key={e.seq} class="line apps-not-ready" data-seq={e.seq}>
          {e.says}
        </li>
      );
    case "marked":
      return (
        <li key={e.seq} class="line marked" data-seq={e.seq}>
          {e.says}
        </li>
      );
    case "skill":
      return (
        <li key={e.seq} class="line skill" data-seq={e.seq}>
          {e.says}
        </li>
      );
    case "memory":
      return (
        <li key={e.seq} class={`line memory${e.held ? " marked" : ""}`} data-seq={e.seq}>
          {e.says}
          {e.held && (
            <>
              {" "}
              <a
                href="/memories"
                onClick={(ev) => {
                  ev.preventDefault();
                  navigate("/memories");
                }}
              >
                Memories
              </a>
            </>
          )}
        </li>
      );
    case "hold-ended":
      return (
        <li key={e.seq} class="line hold-ended" data-seq={e.seq}>
          You stopped holding this chat to {e.skill}'s list.
        </li>
      );
    case "mode":
      return (
        <li key={e.seq} class="line mode-line" data-seq={e.seq}>
          {modeLine(e.mode, e.marked, Boolean(props.others))}
        </li>
      );
    case "artifact": {
      const open = props.shown?.id === e.artifact && props.shown.version === e.version;
      return (
        <li key={e.seq} class={`artifact-card${open ? " open" : ""}`} data-seq={e.seq} data-artifact={e.artifact}>
          <span class="badge">{kindWord(e.kind)}</span> <strong>{e.title}</strong>{" "}
          <span class="quiet">
            {e.action} · version {e.version}
            {e.navigates ? " · has a way out, shown with scripts off" : ""}
          </span>{" "}
          {props.onOpenArtifact && (
            <button class="small" aria-pressed={open} onClick={() => props.onOpenArtifact?.(e.artifact, e.version)}>
              {open ? "Shown" : "Open"}
            </button>
          )}{" "}
          <a href={`/api/artifacts/${e.artifact}/versions/${e.version}/download`}>Download</a>
        </li>
      );
    }
    case "changes":
      return (
        <li key={e.seq} class="line changes" data-seq={e.seq}>
          <span title={e.files.join("\n")}>
            This turn changed {files(e.files.length)}: {someFiles(e.files)}.
          </span>
          {props.onUndo && (
            <>
              {" "}
              <button class="small" onClick={() => void props.onUndo!({ turn: e.turn })}>
                Undo this turn's changes
              </button>
            </>
          )}
        </li>
      );
    case "restored": {
      const put = e.restored.filter((r) => !r.removed).map((r) => r.path);
      const removed = e.restored.filter((r) => r.removed).map((r) => r.path);
      const parts = [
        put.length ? `put back ${files(put.length)} (${someFiles(put)})` : "",
        removed.length ? `removed ${files(removed.length)} the turn made (${someFiles(removed)})` : "",
      ].filter(Boolean);
      const who = e.by === "terminal" ? "From the terminal: " : "";
      const what = e.undoOf ? "Undid the undo" : "Undid this turn's changes";
      return (
        <li key={e.seq} class="line restored" data-seq={e.seq}>
          <span role="status">
            {who}
            {what}
            {parts.length ? `: ${parts.join("; ")}.` : ", but nothing could be put back."}
          </span>
          {e.left.length > 0 && (
            <ul class="left-alone">
              {e.left.map((l) => (
                <li key={l.path}>
                  Left <code>{l.path}</code> as it is. {l.why}
                </li>
              ))}
            </ul>
          )}
          {props.onUndo && e.restored.length > 0 && (
            <button class="small" onClick={() => void props.onUndo!({ undo: e.seq })}>
              Undo this undo
            </button>
          )}
        </li>
      );
    }
    case "turn-error":
      return (
        // The words are the status (read out as they come); the item stays
        // a list item, as the transcript is a list.
        <li key={e.seq} class={e.stopped ? "line turn-stopped" : "line turn-error"} data-seq={e.seq}>
          <span role="status">
            <PagesLinked text={e.text} />
          </span>
          {e.seq === lastError && props.canRetry && props.onRetry && (
            <>
              {" "}
              <button class="small" onClick={() => void props.onRetry!()}>
                Retry
              </button>
            </>
          )}
        </li>
      );
  }
}

/** The Settings pages a sentence names ("Settings → Passwords") are links
 *  to them: an error points to the page that fixes it. */
const PAGES: Record<string, string> = {
  "Settings → Passwords": "/settings/passwords",
  "Settings → Models": "/settings/models",
  "Settings → Security": "/settings/security",
  "Settings → Connections": "/settings/connections",
  "Settings → Apps": "/settings/connections",
};

function PagesLinked({ text }: { text: string }) {
  const names = Object.keys(PAGES).filter((n) => text.includes(n));
  if (!names.length) return <>{text}</>;
  const parts = text.split(new RegExp(`(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`));
  return (
    <>
      {parts.map((p, i) =>
        PAGES[p] ? (
          <a
            key={i}
            href={PAGES[p]}
            onClick={(ev) => {
              ev.preventDefault();
              navigate(PAGES[p]);
            }}
          >
            {p}
          </a>
        ) : (
          p
        ),
      )}
    </>
  );
}

export function Transcript(props: TranscriptProps) {
  const [editing, setEditing] = useState<number | null>(null);
  const edit = { at: editing, set: setEditing };
  const errors = props.entries.filter((e) => e.type === "turn-error" && !e.old);
  const lastError = errors.length ? errors[errors.length - 1].seq : null;
  // The answer to the owner's last message, which Regenerate makes again.
  const replies = props.entries.filter((e) => e.type === "reply" && !e.old && props.lastOwner != null && e.seq > props.lastOwner);
  const lastReply = replies.length ? replies[replies.length - 1].seq : null;
  // An earlier try (a message a later one took the place of, and what
  // followed it) is folded into one line that opens.
  const items = [];
  for (let i = 0; i < props.entries.length; ) {
    const e = props.entries[i];
    if (!e.old) {
      items.push(row(e, props, edit, lastError, lastReply));
      i++;
      continue;
    }
    const group: Entry[] = [];
    while (i < props.entries.length && props.entries[i].old) group.push(props.entries[i++]);
    items.push(
      <li key={`old${e.seq}`} class="earlier" data-seq={e.seq}>
        <details>
          <summary>An earlier try, kept in the chat's log</summary>
          <ol class="transcript">{group.map((g) => row(g, { ...props, onResend: undefined, onRetry: undefined }, edit, null))}</ol>
        </details>
      </li>,
    );
  }
  return (
    <ol class="transcript" aria-live="polite">
      {items}
      {[...props.streaming.entries()].map(([turn, text]) => (
        <li key={`s${turn}`} class="reply streaming">
          <Markdown text={text} />
        </li>
      ))}
    </ol>
  );
}
