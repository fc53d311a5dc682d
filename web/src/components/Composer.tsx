import { useState } from "preact/hooks";
import type { Mode } from "../api";
import { MODES } from "../words";

export function Composer(props: {
  mode: string;
  running: boolean;
  onSend: (text: string) => Promise<void>;
  onStop: () => void;
  onMode: (m: Mode) => void;
}) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const current = MODES.find((m) => m.mode === props.mode);
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
  return (
    <div class="composer">
      <textarea
        aria-label="Message"
        placeholder="Write to Conch"
        rows={2}
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void send();
          }
        }}
      />
      <div class="composer-row">
        <label class="mode">
          <span class="visually-hidden">Mode</span>
          <select
            aria-label="Mode"
            value={props.mode}
            onChange={(e) => props.onMode((e.target as HTMLSelectElement).value as Mode)}
          >
            {MODES.map((m) => (
              <option key={m.mode} value={m.mode}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <span class="mode-says quiet">
          {current?.says}
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
