// Text that may scroll inside its card (a command's output, a file's
// diff): long, it takes the focus, so the keyboard can scroll it too
// (axe's scrollable-region-focusable), and it is named for a screen reader.

import type { ComponentChildren } from "preact";

/** Over this many lines or characters, the text may scroll. */
const LINES = 12;
const CHARS = 1200;

export function isLong(text: string): boolean {
  return text.length > CHARS || text.split("\n").length > LINES;
}

export function Scrolls(props: { text: string; label: string; class?: string; children?: ComponentChildren }) {
  const long = isLong(props.text);
  return (
    <pre class={props.class} tabIndex={long ? 0 : undefined} aria-label={long ? props.label : undefined}>
      {props.children ?? props.text}
    </pre>
  );
}
