import { useEffect, useRef, useState } from "preact/hooks";

/** The owner's last message: Edit and resend puts its words back in a box. */
export function Editing(props: { text: string; onSend: (text: string) => Promise<void>; onCancel: () => void }) {
  const [text, setText] = useState(props.text);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), []);
  const send = async () => {
    if (!text.trim()) return;
    try {
      await props.onSend(text.trim());
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div class="editing">
      <textarea
        ref={box}
        aria-label="Edit what you wrote"
        value={text}
        rows={Math.min(8, text.split("\n").length + 1)}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void send();
          } else if (e.key === "Escape") {
            e.preventDefault();
            props.onCancel();
          }
        }}
      />
      <div class="row">
        <button class="primary" disabled={!text.trim()} onClick={() => void send()}>
          Send as a new turn
        </button>
        <button onClick={props.onCancel}>Cancel</button>
      </div>
      <p class="quiet">The first answer stays in the chat's log.</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

