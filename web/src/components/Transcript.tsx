import { useMemo } from "preact/hooks";
import type { Entry, Question } from "../events";
import { renderMarkdown } from "../markdown";
import { modeName } from "../words";
import { kindWord } from "../artifacts/kinds";
import { navigate } from "../router";
import { QuestionCard } from "./QuestionCard";
import { ToolCard } from "./ToolCard";

function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

export function Transcript(props: {
  entries: Entry[];
  streaming: Map<number, string>;
  firstPending: string | null;
  onAnswer: (q: Question, a: "once" | "always" | "deny") => Promise<void>;
  shown?: { id: string; version: number } | null;
  onOpenArtifact?: (id: string, version: number) => void;
}) {
  return (
    <ol class="transcript" aria-live="polite">
      {props.entries.map((e) => {
        switch (e.type) {
          case "message":
            return (
              <li key={e.seq} class={`message from-${e.from}`} data-seq={e.seq}>
                {e.from !== "owner" && (
                  <span class="who">{e.from === "person" ? `${e.name ?? "Someone"}${e.app ? ` on ${e.app}` : ""}` : e.from === "task" ? "A task" : "A routine"}</span>
                )}
                <p>{e.text}</p>
              </li>
            );
          case "reply":
            return (
              <li key={e.seq} class="reply" data-seq={e.seq}>
                <Markdown text={e.text} />
              </li>
            );
          case "tool":
            return (
              <li key={e.seq} class="tool-item" data-seq={e.seq}>
                <ToolCard entry={e.entry} />
              </li>
            );
          case "question":
            return (
              <li key={e.seq} class="question-item" data-seq={e.seq}>
                <QuestionCard q={e.q} first={e.q.ask === props.firstPending} onAnswer={(a) => props.onAnswer(e.q, a)} />
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
                Mode: {modeName(e.mode)}
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
          case "turn-error":
            return (
              <li key={e.seq} class="line turn-error" role="status" data-seq={e.seq}>
                {e.text}
              </li>
            );
        }
      })}
      {[...props.streaming.entries()].map(([turn, text]) => (
        <li key={`s${turn}`} class="reply streaming">
          <Markdown text={text} />
        </li>
      ))}
    </ol>
  );
}
