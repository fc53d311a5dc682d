import { useEffect, useRef } from "preact/hooks";
import "../pages.css";

const KEYS: [string, string][] = [
  ["Ctrl K or ⌘K", "Find chats, skills, things made, and commands"],
  ["?", "This list"],
  ["Enter", "Send the message (Shift+Enter for a new line)"],
  ["Escape", "Leave the message box, so a question's keys work; close a dialog"],
  ["o", "Answer the waiting question: once"],
  ["a", "Answer it: always allow, the narrowest the card offers"],
  ["d", "Answer it: deny"],
  ["Tab", "Every button, in order; a question's buttons come first when it appears"],
];

/** `?`: the keyboard shortcuts. */
export function Shortcuts({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  const before = useRef<Element | null>(document.activeElement);
  useEffect(() => {
    close.current?.focus();
    return () => (before.current as HTMLElement | null)?.focus?.();
  }, []);
  return (
    <div class="palette-backdrop" onClick={onClose}>
      <div
        class="palette shortcuts"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            onClose();
          }
        }}
      >
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <dl>
          {KEYS.map(([key, what]) => (
            <div key={key}>
              <dt>
                <kbd>{key}</kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
        <button ref={close} onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
