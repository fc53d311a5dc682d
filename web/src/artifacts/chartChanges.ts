// A chart's Changes in words and values: what a person would say changed
// ("Visitors" on Mon: 12 → 22), not a diff of its JSON.

import type { ChartSpec } from "./Chart";

const KINDS: Record<string, string> = { bar: "a bar chart", line: "a line chart", area: "an area chart", pie: "a pie chart", scatter: "a scatter chart" };
/** Values changed beyond this are counted, not listed. */
const LISTED = 24;

const q = (s: string | number) => `“${s}”`;
const num = new Intl.NumberFormat(undefined, { maximumFractionDigits: 6 });
const value = (v: number | undefined) => (typeof v === "number" && Number.isFinite(v) ? num.format(v) : "nothing");

function text(name: string, before?: string, after?: string): string | null {
  if ((before ?? "") === (after ?? "")) return null;
  if (!before) return `${name} added: ${q(after ?? "")}.`;
  if (!after) return `${name} taken away (was ${q(before)}).`;
  return `${name}: ${q(before)} → ${q(after)}.`;
}

/** Reads a version's text as a chart spec; null when it isn't one. */
export function parseChart(source: string): ChartSpec | null {
  try {
    const spec = JSON.parse(source) as ChartSpec;
    return spec && Array.isArray(spec.labels) && Array.isArray(spec.series) ? spec : null;
  } catch {
    return null;
  }
}

/** What changed from `a` to `b`, a sentence each. */
export function chartChanges(a: ChartSpec, b: ChartSpec): string[] {
  const out: string[] = [];
  if (a.type !== b.type) out.push(`Now ${KINDS[b.type] ?? b.type} (was ${KINDS[a.type] ?? a.type}).`);
  for (const line of [text("Title", a.title, b.title), text("Axis title across", a.xTitle, b.xTitle), text("Axis title up", a.yTitle, b.yTitle)]) {
    if (line) out.push(line);
  }
  const labelsA = a.labels.map(String);
  const labelsB = b.labels.map(String);
  const added = labelsB.filter((l) => !labelsA.includes(l));
  const removed = labelsA.filter((l) => !labelsB.includes(l));
  if (added.length) out.push(`${added.length === 1 ? "Label" : "Labels"} added: ${added.map(q).join(", ")}.`);
  if (removed.length) out.push(`${removed.length === 1 ? "Label" : "Labels"} taken away: ${removed.map(q).join(", ")}.`);
  const kept = labelsB.filter((l) => labelsA.includes(l));
  if (!added.length && !removed.length && labelsA.join("\u0000") !== labelsB.join("\u0000")) out.push("The labels are in a new order.");
  const namesA = a.series.map((s) => s.name);
  const namesB = b.series.map((s) => s.name);
  for (const s of b.series.filter((s) => !namesA.includes(s.name))) out.push(`Series added: ${q(s.name)}, ${s.values.length} ${s.values.length === 1 ? "value" : "values"}.`);
  for (const s of a.series.filter((s) => !namesB.includes(s.name))) out.push(`Series taken away: ${q(s.name)}.`);
  const values: string[] = [];
  for (const sb of b.series) {
    const sa = a.series.find((s) => s.name === sb.name);
    if (!sa) continue;
    for (const label of kept) {
      const before = sa.values[labelsA.indexOf(label)];
      const after = sb.values[labelsB.indexOf(label)];
      if (before !== after) values.push(`${q(sb.name)} at ${q(label)}: ${value(before)} → ${value(after)}.`);
    }
  }
  out.push(...values.slice(0, LISTED));
  if (values.length > LISTED) out.push(`And ${values.length - LISTED} more values changed (the line diff below has them all).`);
  return out;
}
