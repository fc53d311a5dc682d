import { useState } from "preact/hooks";
import type { HoldLine } from "../events";
import { Confirm } from "./Confirm";

function listWords(h: HoldLine): string[] {
  const p = h.permissions;
  if (!p) return ["The usual list: read files and pages; no commands."];
  return [
    p.commands.length ? `Commands: ${p.commands.join(", ")}` : "Commands: none",
    `Files: ${p.files}`,
    `Web: ${p.web}`,
    p.integrations.length ? `Connections: ${p.integrations.join(", ")}` : "Connections: none",
  ];
}

/** One quiet line per skill the chat is held to (Nacre's SkillHold): its
 *  name opens the list; Stop holding asks once, and waits while an answer
 *  is being written. */
export function HoldsBar(props: {
  holds: HoldLine[];
  busy: boolean;
  onStop: (skill: string) => Promise<void>;
}) {
  const [open, setOpen] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (!props.holds.length) return null;
  return (
    <div class="holds" aria-label="Skills this chat is held to">
      {props.holds.map((h) => (
        <div class="hold" key={h.skill} data-skill={h.skill}>
          <span>
            Held to{" "}
            <button class="link" aria-expanded={open === h.skill} onClick={() => setOpen(open === h.skill ? null : h.skill)}>
              {h.skill}
            </button>
            's list
          </span>
          <button
            class="small"
            disabled={props.busy}
            title={props.busy ? "Wait for the answer to finish" : undefined}
            onClick={() => setConfirm(h.skill)}
          >
            Stop holding
          </button>
          {open === h.skill && (
            <ul class="hold-list">
              {listWords(h).map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          )}
          {confirm === h.skill && (
            <Confirm label="Stop holding" onKeep={() => setConfirm(null)}>
              <p>
                The {h.skill} skill's instructions are still in this chat. Stop holding it to {h.skill}'s list? From then on,
                only the mode decides.
              </p>
              <button
                class="danger"
                disabled={props.busy}
                onClick={async () => {
                  setError(null);
                  try {
                    await props.onStop(h.skill);
                    setConfirm(null);
                  } catch (e) {
                    setError(e instanceof Error ? e.message : String(e));
                  }
                }}
              >
                Stop holding
              </button>
              <button data-keep onClick={() => setConfirm(null)}>
                Keep holding
              </button>
            </Confirm>
          )}
        </div>
      ))}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
