// A table artifact: CSV drawn by Conch, sortable by any column (numbers as
// numbers), with only the rows in view drawn, so a table of thousands of
// rows sorts and scrolls smoothly.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { numeric, parseCsv, sortOrder } from "./csv";

const ROW = 30;
const SPARE = 12;

export function Table({ text, title }: { text: string; title: string }) {
  const { header, rows } = useMemo(() => {
    const all = parseCsv(text);
    return { header: all[0] as string[] | undefined, rows: all.slice(1) };
  }, [text]);
  const [sort, setSort] = useState<{ column: number; descending: boolean } | null>(null);
  const order = useMemo(
    () => (sort ? sortOrder(rows, sort.column, sort.descending) : rows.map((_, i) => i)),
    [rows, sort?.column, sort?.descending],
  );
  const right = useMemo(() => (header ?? []).map((_, c) => numeric(rows, c)), [rows]);
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const update = () => setView({ top: el.scrollTop, height: el.clientHeight || 800 });
    update();
    el.addEventListener("scroll", update, { passive: true });
    const ro = new ResizeObserver(update);
    ro.observe(el);
    return () => {
      el.removeEventListener("scroll", update);
      ro.disconnect();
    };
  }, []);
  if (!header) return <p class="quiet">The table is empty.</p>;
  const first = Math.max(0, Math.floor(view.top / ROW) - SPARE);
  const last = Math.min(order.length, Math.ceil((view.top + view.height) / ROW) + SPARE);
  const press = (column: number) =>
    setSort((s) => (s?.column === column ? { column, descending: !s.descending } : { column, descending: false }));
  return (
    <div class="table-scroll" ref={scroller} tabIndex={0} aria-label={`${title}: ${rows.length} rows`}>
      <table class="data-table" aria-rowcount={rows.length + 1}>
        <thead>
          <tr>
            {header.map((h, c) => {
              const on = sort?.column === c;
              return (
                <th key={c} scope="col" class={right[c] ? "num" : ""} aria-sort={on ? (sort.descending ? "descending" : "ascending") : "none"}>
                  <button class="sort" onClick={() => press(c)} title={`Sort by ${h}`}>
                    {h}
                    <span class="arrow" aria-hidden="true">
                      {on ? (sort.descending ? " ↓" : " ↑") : ""}
                    </span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {first > 0 && (
            <tr class="spacer" aria-hidden="true">
              <td colSpan={header.length} style={{ height: `${first * ROW}px` }} />
            </tr>
          )}
          {order.slice(first, last).map((r, i) => (
            <tr key={r} aria-rowindex={first + i + 2}>
              {header.map((_, c) => (
                <td key={c} class={right[c] ? "num" : ""} title={(rows[r][c] ?? "").length > 40 ? rows[r][c] : undefined}>
                  {rows[r][c] ?? ""}
                </td>
              ))}
            </tr>
          ))}
          {last < order.length && (
            <tr class="spacer" aria-hidden="true">
              <td colSpan={header.length} style={{ height: `${(order.length - last) * ROW}px` }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
