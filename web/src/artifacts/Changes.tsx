// The Changes tab: a line diff of this version against the version kept
// before it (the gateway's diff, kept like the versions).

import { useEffect, useState } from "preact/hooks";
import type { DiffLine } from "../api";
import { changes } from "./cache";

export function Changes({ id, n }: { id: string; n: number }) {
  const [diff, setDiff] = useState<{ from: number | null; lines: DiffLine[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setDiff(null);
    setError(null);
    changes(id, n).then(
      (d) => live && setDiff(d),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [id, n]);
  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (!diff) return <p class="quiet">Comparing…</p>;
  if (diff.from === null) return <p class="quiet changes-none">This is the first version, so there is nothing to compare it with.</p>;
  const added = diff.lines.filter((l) => l.op === "added").length;
  const removed = diff.lines.filter((l) => l.op === "removed").length;
  return (
    <div class="changes">
      <p class="quiet changes-head">
        From version {diff.from} to version {n}: {added} {added === 1 ? "line" : "lines"} added, {removed} removed.
      </p>
      <pre class="diff code" tabIndex={0} aria-label={`Changes from version ${diff.from} to version ${n}`}>
        <code>
          {diff.lines.map((l, i) => (
            <span key={i} class={`line ${l.op === "added" ? "add" : l.op === "removed" ? "del" : "same"}`}>
              <span class="visually-hidden">{l.op === "added" ? "Added: " : l.op === "removed" ? "Removed: " : ""}</span>
              <span class="mark" aria-hidden="true">
                {l.op === "added" ? "+" : l.op === "removed" ? "−" : " "}
              </span>
              {l.text}
              {"\n"}
            </span>
          ))}
        </code>
      </pre>
    </div>
  );
}
