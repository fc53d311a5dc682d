// The Code tab: a version's text, with line numbers. A chart's JSON is laid
// out one value per line.

import { useMemo } from "preact/hooks";

export function laidOut(kind: string, text: string): string {
  if (kind !== "chart") return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function Code({ kind, text }: { kind: string; text: string }) {
  const lines = useMemo(() => laidOut(kind, text).split("\n"), [kind, text]);
  return (
    <pre class="code" tabIndex={0} aria-label={`The code, ${lines.length} lines`}>
      <code>
        {lines.map((l, i) => (
          <span key={i} class="line">
            {l}
            {"\n"}
          </span>
        ))}
      </code>
    </pre>
  );
}
