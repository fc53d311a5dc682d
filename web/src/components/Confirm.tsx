// A question asked in place before something that can't be taken back:
// the safe answer has the focus, and Esc gives it.

import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** `children` holds the sentence and the buttons; the one that keeps
 *  things as they are carries `data-keep`. */
export function Confirm(props: { label: string; onKeep: () => void; children: ComponentChildren }) {
  const self = useRef<HTMLDivElement>(null);
  useEffect(() => {
    self.current?.querySelector<HTMLButtonElement>("button[data-keep]")?.focus();
  }, []);
  return (
    <div
      ref={self}
      class="confirm"
      role="alertdialog"
      aria-label={props.label}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          props.onKeep();
        }
      }}
    >
      {props.children}
    </div>
  );
}
