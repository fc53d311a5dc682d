// CSV (RFC 4180: quoted fields, "" inside quotes, CRLF or LF) and how a
// table's cells sort: numbers as numbers, words as words.

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let atStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
      continue;
    }
    if (c === '"' && atStart) {
      quoted = true;
      atStart = false;
    } else if (c === ",") {
      row.push(field);
      field = "";
      atStart = true;
    } else if (c === "\r" && text[i + 1] === "\n") {
      // The \n ends the row.
    } else if (c === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      atStart = true;
    } else {
      field += c;
      atStart = false;
    }
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** A cell read as a number: "1,234.5", "-3", "12%", "€4.50"; NaN when it
 *  isn't one. */
export function asNumber(cell: string): number {
  const t = cell.trim().replace(/^[€$£¥]\s?/, "").replace(/%$/, "");
  if (!/^[-+]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?([eE][-+]?\d+)?$/.test(t) || !/\d/.test(t)) return NaN;
  return Number(t.replace(/,/g, ""));
}

const words = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** The order of the rows sorted by one column: numbers as numbers (before
 *  words, when a column mixes them), words as words, empty cells last
 *  either way. Stable. */
export function sortOrder(rows: string[][], column: number, descending: boolean): number[] {
  const keys = rows.map((r) => {
    const cell = r[column] ?? "";
    return { cell, n: asNumber(cell), empty: cell.trim() === "" };
  });
  const order = rows.map((_, i) => i);
  const dir = descending ? -1 : 1;
  order.sort((a, b) => {
    const x = keys[a];
    const y = keys[b];
    if (x.empty || y.empty) return x.empty === y.empty ? a - b : x.empty ? 1 : -1;
    const xn = !Number.isNaN(x.n);
    const yn = !Number.isNaN(y.n);
    let c: number;
    if (xn && yn) c = x.n - y.n;
    else if (xn !== yn) c = xn ? -1 : 1;
    else c = words.compare(x.cell, y.cell);
    return c === 0 ? a - b : c * dir;
  });
  return order;
}

/** Whether most of a column is numbers (so it is aligned to the right). */
export function numeric(rows: string[][], column: number): boolean {
  let numbers = 0;
  let filled = 0;
  for (const r of rows) {
    const cell = r[column] ?? "";
    if (cell.trim() === "") continue;
    filled++;
    if (!Number.isNaN(asNumber(cell))) numbers++;
  }
  return filled > 0 && numbers / filled >= 0.8;
}
