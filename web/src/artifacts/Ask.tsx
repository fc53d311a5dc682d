// A question the panel asks once, in place: Delete, Run it anyway, and
// "Open evil.example?" with the full address. The safe answer has focus.

import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

export interface Asking {
  question: string;
  detail?: ComponentChildren;
  yes: string;
  no: string;
  danger?: boolean;
  onYes: () => void | Promise<void>;
}

export function Ask({ asking, onDone }: { asking: Asking; onDone: () => void }) {
  const no = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => no.current?.focus(), [asking]);
  const yes = async () => {
    setBusy(true);
    try {
      await asking.onYes();
      onDone();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  return (
    <div
      class="ask"
      role="alertdialog"
      aria-modal="false"
      aria-labelledby="ask-question"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onDone();
        }
      }}
    >
      <p id="ask-question" class="ask-question">
        {asking.question}
      </p>
      {asking.detail && <div class="ask-detail">{asking.detail}</div>}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="answers">
        <button class={asking.danger ? "danger" : "primary"} disabled={busy} onClick={() => void yes()}>
          {asking.yes}
        </button>
        <button ref={no} disabled={busy} onClick={onDone}>
          {asking.no}
        </button>
      </div>
    </div>
  );
}
