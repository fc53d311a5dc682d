import { useEffect, useRef, useState } from "preact/hooks";
import type { Grant, Mode, Provider } from "../api";
import { MODES } from "../words";

/** The model the chat's next turn runs on, and the picker that changes it. */
export interface Models {
  providers: Provider[];
  /** The provider the next turn runs on (picked, or the default). */
  current: string | null;
  /** What answers when no provider is set up. */
  engine: string;
  onPick: (provider: string) => void;
}

/** The message box grows with what is typed, up to ten lines. */
function fit(box: HTMLTextAreaElement | null) {
  if (!box) return;
  box.style.height = "auto";
  const line = parseFloat(getComputedStyle(box).lineHeight) || 22;
  box.style.height = `${Math.min(box.scrollHeight + 2, line * 10 + 18)}px`;
}

export function Composer(props: {
  mode: string;
  running: boolean;
  onSend: (text: string) => Promise<void>;
  onStop: () => void;
  onMode: (m: Mode) => void;
  /** Escape: leave the box (so a card's keys work). */
  onLeave?: () => void;
  models?: Models;
  /** Put the cursor in the box when the chat opens. */
  focus?: boolean;
  /** The "always" answers in force, and how to take one back. */
  grants?: Grant[];
  onRevoke?: (key: string) => Promise<void>;
}) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const current = MODES.find((m) => m.mode === props.mode);
  useEffect(() => {
    // On a touch screen the keyboard would cover the chat: wait for a tap.
    if (props.focus && !matchMedia("(pointer: coarse)").matches && document.activeElement === document.body) box.current?.focus();
  }, [props.focus]);
  useEffect(() => fit(box.current), [text]);
  const send = async () => {
    const t = text.trim();
    if (!t) return;
    setError(null);
    try {
      await props.onSend(t);
      setText("");
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const m = props.models;
  const grants = props.grants ?? [];
  // The mode's sentence stays true once something is allowed for the chat.
  const says = current && grants.length ? `${current.says.replace(/\.$/, "")}, except what you allowed above.` : current?.says;
  return (
    <div class="composer">
      {grants.length > 0 && (
        <ul class="grants" aria-label="Allowed in this chat">
          {grants.map((g) => (
            <li key={g.key}>
              <span>{g.says}</span>{" "}
              <button
                type="button"
                class="link"
                aria-label={`Undo: ${g.says}`}
                onClick={() => void props.onRevoke?.(g.key).catch((e) => setError(e instanceof Error ? e.message : String(e)))}
              >
                Undo
              </button>
            </li>
          ))}
        </ul>
      )}
      <textarea
        ref={box}
        aria-label="Message"
        placeholder="Write to Conch"
        rows={1}
        value={text}
        onInput={(e) => {
          const target = e.target as HTMLTextAreaElement;
          setText(target.value);
          // Now, not after the next paint: the box never lags what is typed.
          fit(target);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void send();
          } else if (e.key === "Escape") {
            e.preventDefault();
            box.current?.blur();
            props.onLeave?.();
          }
        }}
      />
      <div class="composer-row">
        <select aria-label="Mode" aria-describedby="mode-says" value={props.mode} onChange={(e) => props.onMode((e.target as HTMLSelectElement).value as Mode)}>
          {MODES.map((x) => (
            <option key={x.mode} value={x.mode}>
              {x.name}
            </option>
          ))}
        </select>
        {m && (
          <select
            aria-label="Next turn runs on"
            title="The model that answers the next turn"
            value={m.current ?? ""}
            disabled={!m.providers.length}
            onChange={(e) => m.onPick((e.target as HTMLSelectElement).value)}
          >
            {m.providers.map((p) => (
              <option key={p.name} value={p.name}>
                {p.model} ({p.name})
              </option>
            ))}
            {!m.providers.some((p) => p.name === m.current) && <option value="">{m.engine === "mock" ? "Mock engine" : m.engine}</option>}
          </select>
        )}
        <span id="mode-says" class="mode-says quiet">
          {says}
          {current?.warning && <strong class="warning"> {current.warning}</strong>}
        </span>
        {props.running && (
          <button class="danger" onClick={props.onStop}>
            Stop
          </button>
        )}
        <button class="primary" onClick={() => void send()} disabled={!text.trim()}>
          {props.running ? "Send after this" : "Send"}
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
