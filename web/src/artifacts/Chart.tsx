// Charts, drawn by Conch itself in SVG (ADR 0034 §2): a fixed order of
// eight colour-blind-checked colours (--nc-chart-1 … 8, checked by
// e2e/tests/chart-colours.test.mjs), thin marks, a recessive grid, a
// legend for two or more series, a tooltip on every mark, and the same
// numbers one press away as a table. Loaded only when a chart is shown.

import { useMemo, useState } from "preact/hooks";

export interface ChartSpec {
  type: "bar" | "line" | "area" | "pie" | "scatter";
  title?: string;
  labels: (string | number)[];
  series: { name: string; values: number[] }[];
  xTitle?: string;
  yTitle?: string;
}

const W = 640;
const H = 360;
const M = { top: 14, right: 18, bottom: 52, left: 62 };
const PW = W - M.left - M.right;
const PH = H - M.top - M.bottom;
/** More marks than this, and they stay out of the tab order (their
 *  numbers are in the table). */
const FOCUSABLE = 200;

const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const colour = (i: number) => `c${(i % 8) + 1}`;
const short = (s: string, n = 14) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Round steps between lo and hi, about `n` of them. */
export function ticks(lo: number, hi: number, n = 5): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [0, 1];
  if (lo === hi) {
    hi = lo === 0 ? 1 : lo + Math.abs(lo) * 0.5;
    lo = lo === 0 ? 0 : Math.min(0, lo - Math.abs(lo) * 0.5);
  }
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  const step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  const out: number[] = [];
  for (let v = Math.floor(lo / step) * step; v <= Math.ceil(hi / step) * step + step / 2; v += step) {
    out.push(Number(v.toPrecision(12)));
  }
  return out;
}

interface Tip {
  x: number;
  y: number;
  text: string;
}

interface MarkProps {
  text: string;
  focusable: boolean;
  at: [number, number];
  onTip: (t: Tip | null) => void;
}

/** What every mark shares: a native tooltip, ours on hover and focus. */
function markProps({ text, focusable, at, onTip }: MarkProps) {
  return {
    tabIndex: focusable ? 0 : undefined,
    "aria-label": focusable ? text : undefined,
    onPointerEnter: () => onTip({ x: at[0], y: at[1], text }),
    onPointerLeave: () => onTip(null),
    onFocus: () => onTip({ x: at[0], y: at[1], text }),
    onBlur: () => onTip(null),
  };
}

function YAxis({ values, y, title }: { values: number[]; y: (v: number) => number; title?: string }) {
  return (
    <g class="axis">
      {values.map((v) => (
        <g key={v}>
          <line class="grid" x1={M.left} x2={W - M.right} y1={y(v)} y2={y(v)} />
          <text x={M.left - 8} y={y(v)} dy="0.32em" text-anchor="end">
            {number.format(v)}
          </text>
        </g>
      ))}
      {title && (
        <text class="axis-title" transform={`translate(14 ${M.top + PH / 2}) rotate(-90)`} text-anchor="middle">
          {title}
        </text>
      )}
    </g>
  );
}

function XLabels({ labels, x, title }: { labels: string[]; x: (i: number) => number; title?: string }) {
  const every = Math.max(1, Math.ceil(labels.length / 10));
  return (
    <g class="axis">
      <line class="baseline" x1={M.left} x2={W - M.right} y1={M.top + PH} y2={M.top + PH} />
      {labels.map((l, i) =>
        i % every === 0 ? (
          <text key={i} x={x(i)} y={M.top + PH + 18} text-anchor="middle">
            <title>{l}</title>
            {short(l)}
          </text>
        ) : null,
      )}
      {title && (
        <text class="axis-title" x={M.left + PW / 2} y={H - 8} text-anchor="middle">
          {title}
        </text>
      )}
    </g>
  );
}

function Cartesian({ spec, onTip }: { spec: ChartSpec; onTip: (t: Tip | null) => void }) {
  const labels = spec.labels.map(String);
  const all = spec.series.flatMap((s) => s.values);
  const scatter = spec.type === "scatter";
  const xs = spec.labels.map(Number);
  const yTicks = ticks(Math.min(0, ...all), Math.max(0, ...all));
  const [y0, y1] = [yTicks[0], yTicks[yTicks.length - 1]];
  const y = (v: number) => M.top + PH - ((v - y0) / (y1 - y0 || 1)) * PH;
  const xTicks = scatter ? ticks(Math.min(...xs), Math.max(...xs)) : [];
  const band = PW / Math.max(1, labels.length);
  const x = scatter
    ? (i: number) => M.left + ((xs[i] - xTicks[0]) / (xTicks[xTicks.length - 1] - xTicks[0] || 1)) * PW
    : (i: number) => M.left + band * (i + 0.5);
  const focusable = all.length <= FOCUSABLE;
  const say = (s: string, i: number, v: number) => `${s}: ${labels[i]}, ${number.format(v)}`;
  const marks = spec.series.map((s, si) => {
    const c = colour(si);
    if (spec.type === "bar") {
      const inner = band * 0.8;
      const w = Math.max(0.5, inner / spec.series.length - (spec.series.length > 1 ? 1 : 0));
      return (
        <g key={si} class={`series ${c}`}>
          {s.values.map((v, i) => {
            const left = M.left + band * i + band * 0.1 + (inner / spec.series.length) * si;
            const top = Math.min(y(v), y(0));
            const text = say(s.name, i, v);
            return (
              <rect key={i} class="mark bar" x={left} y={top} width={w} height={Math.max(0.5, Math.abs(y(v) - y(0)))} {...markProps({ text, focusable, at: [left + w / 2, top], onTip })}>
                <title>{text}</title>
              </rect>
            );
          })}
        </g>
      );
    }
    const points = s.values.map((v, i) => [x(i), y(v)] as const);
    const line = points.map(([px, py], i) => `${i ? "L" : "M"}${px.toFixed(1)} ${py.toFixed(1)}`).join("");
    return (
      <g key={si} class={`series ${c}`}>
        {spec.type === "area" && points.length > 0 && (
          <path class="area" d={`${line}L${points[points.length - 1][0].toFixed(1)} ${y(Math.max(0, y0)).toFixed(1)}L${points[0][0].toFixed(1)} ${y(Math.max(0, y0)).toFixed(1)}Z`} />
        )}
        {!scatter && <path class="line" d={line} />}
        {points.map(([px, py], i) => {
          const text = scatter ? `${s.name}: ${number.format(xs[i])}, ${number.format(s.values[i])}` : say(s.name, i, s.values[i]);
          return (
            <circle key={i} class={`mark ${scatter ? "dot" : "point"}`} cx={px} cy={py} r={scatter ? 3.5 : 2.5} {...markProps({ text, focusable, at: [px, py], onTip })}>
              <title>{text}</title>
            </circle>
          );
        })}
      </g>
    );
  });
  return (
    <>
      <YAxis values={yTicks} y={y} title={spec.yTitle} />
      {scatter ? (
        <g class="axis">
          <line class="baseline" x1={M.left} x2={W - M.right} y1={M.top + PH} y2={M.top + PH} />
          {xTicks.map((v) => {
            const px = M.left + ((v - xTicks[0]) / (xTicks[xTicks.length - 1] - xTicks[0] || 1)) * PW;
            return (
              <text key={v} x={px} y={M.top + PH + 18} text-anchor="middle">
                {number.format(v)}
              </text>
            );
          })}
          {spec.xTitle && (
            <text class="axis-title" x={M.left + PW / 2} y={H - 8} text-anchor="middle">
              {spec.xTitle}
            </text>
          )}
        </g>
      ) : (
        <XLabels labels={labels} x={x} title={spec.xTitle} />
      )}
      {marks}
    </>
  );
}

function Pie({ spec, onTip }: { spec: ChartSpec; onTip: (t: Tip | null) => void }) {
  const values = spec.series[0]?.values ?? [];
  const total = values.reduce((a, b) => a + b, 0);
  const cx = W / 2;
  const cy = H / 2;
  const r = Math.min(W, H) / 2 - 20;
  let angle = -Math.PI / 2;
  const focusable = values.length <= FOCUSABLE;
  return (
    <g class="pie">
      {values.map((v, i) => {
        const share = total > 0 ? v / total : 0;
        const start = angle;
        angle += share * Math.PI * 2;
        const mid = (start + angle) / 2;
        const text = `${spec.labels[i]}: ${number.format(v)} (${number.format(share * 100)}%)`;
        const at: [number, number] = [cx + Math.cos(mid) * r * 0.6, cy + Math.sin(mid) * r * 0.6];
        const common = { class: `mark slice ${colour(i)}`, ...markProps({ text, focusable, at, onTip }) };
        if (share >= 0.9999) {
          return (
            <circle key={i} cx={cx} cy={cy} r={r} {...common}>
              <title>{text}</title>
            </circle>
          );
        }
        const [x1, y1] = [cx + Math.cos(start) * r, cy + Math.sin(start) * r];
        const [x2, y2] = [cx + Math.cos(angle) * r, cy + Math.sin(angle) * r];
        const large = angle - start > Math.PI ? 1 : 0;
        return (
          <path key={i} d={`M${cx} ${cy}L${x1.toFixed(2)} ${y1.toFixed(2)}A${r} ${r} 0 ${large} 1 ${x2.toFixed(2)} ${y2.toFixed(2)}Z`} {...common}>
            <title>{text}</title>
          </path>
        );
      })}
    </g>
  );
}

/** The same numbers, as a table. */
function Numbers({ spec }: { spec: ChartSpec }) {
  return (
    <div class="chart-table-wrap">
      <table class="chart-table">
        <caption class="visually-hidden">{spec.title ?? "The chart's numbers"}</caption>
        <thead>
          <tr>
            <th scope="col">{spec.xTitle || (spec.type === "scatter" ? "x" : "Label")}</th>
            {spec.series.map((s) => (
              <th key={s.name} scope="col" class="num">
                {s.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {spec.labels.map((l, i) => (
            <tr key={i}>
              <th scope="row">{typeof l === "number" ? number.format(l) : l}</th>
              {spec.series.map((s) => (
                <td key={s.name} class="num">
                  {number.format(s.values[i])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Chart({ spec, title }: { spec: ChartSpec; title: string }) {
  const [asTable, setAsTable] = useState(false);
  const [tip, setTip] = useState<Tip | null>(null);
  const legend = spec.type === "pie" ? spec.labels.map(String) : spec.series.length >= 2 ? spec.series.map((s) => s.name) : [];
  const summary = useMemo(
    () =>
      `${spec.title ?? title}: a ${spec.type} chart of ${spec.series.map((s) => s.name).join(", ")} over ${spec.labels.length} ${
        spec.labels.length === 1 ? "label" : "labels"
      }.`,
    [spec, title],
  );
  return (
    <figure class={`chart chart-${spec.type}`}>
      <div class="chart-head">
        {spec.title && <figcaption>{spec.title}</figcaption>}
        <button class="small" aria-pressed={asTable} onClick={() => setAsTable(!asTable)}>
          {asTable ? "Show the chart" : "Show as a table"}
        </button>
      </div>
      {asTable ? (
        <Numbers spec={spec} />
      ) : (
        <div class="chart-plot">
          <svg viewBox={`0 0 ${W} ${H}`} role="group" aria-label={summary}>
            {spec.type === "pie" ? <Pie spec={spec} onTip={setTip} /> : <Cartesian spec={spec} onTip={setTip} />}
          </svg>
          {tip && (
            <div class="chart-tip" role="tooltip" style={{ left: `${(tip.x / W) * 100}%`, top: `${(tip.y / H) * 100}%` }}>
              {tip.text}
            </div>
          )}
        </div>
      )}
      {legend.length > 0 && !asTable && (
        <ul class="legend" aria-label="Legend">
          {legend.map((name, i) => (
            <li key={`${i}:${name}`}>
              <span class={`swatch ${colour(i)}`} aria-hidden="true" />
              {name}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
