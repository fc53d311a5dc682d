// The Changes tab: a line diff of this version against the version kept
// before it (the gateway's diff, kept like the versions). A chart's says
// first what changed in words and values; its line diff follows, folded.

import { useEffect, useState } from "preact/hooks";
import type { DiffLine } from "../api";
import { changes, versionText } from "./cache";
import { chartChanges, parseChart } from "./chartChanges";

export function Changes({ id, n, kind }: { id: string; n: number; kind?: string }) {
  const [diff, setDiff] = useState<{ from: number | null; lines: DiffLine[] } | null>(null);
  const [words, setWords] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setDiff(null);
    setWords(null);
    setError(null);
    changes(id, n).then(
      (d) => {
        if (!live) return;
        setDiff(d);
        if (kind !== "chart" || d.from === null) return;
        // Said in words when both versions read as charts; the line diff
        // alone otherwise.
        void Promise.all([versionText(id, d.from), versionText(id, n)]).then(
          ([a, b]) => {
            const before = parseChart(a);
            const after = parseChart(b);
            if (live && before && after) setWords(chartChanges(before, after));
          },
          () => {},
        );
      },
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [id, n, kind]);
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
  const lines = (
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
  );
  if (words)
    return (
      <div class="changes">
        <p class="quiet changes-head">From version {diff.from} to version {n}:</p>
        <ul class="chart-changes">
          {words.length ? words.map((w, i) => <li key={i}>{w}</li>) : <li>Nothing in the chart changed.</li>}
        </ul>
        <details class="changes-lines">
          <summary>The chart's spec, line by line</summary>
          {lines}
        </details>
      </div>
    );
  return (
    <div class="changes">
      <p class="quiet changes-head">
        From version {diff.from} to version {n}: {added} {added === 1 ? "line" : "lines"} added, {removed} removed.
      </p>
      {lines}
    </div>
  );
}
