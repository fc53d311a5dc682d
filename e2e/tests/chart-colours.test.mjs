// The chart colours (ADR 0034 §2: "a fixed, colour-blind-checked order of
// eight --nc-chart-* colours"), checked from the stylesheet the app ships,
// in light and in dark: eight of them, each at least 3:1 against the
// panel it is drawn on (WCAG 1.4.11, graphics), and any two of them at
// least 10 apart (CIEDE2000) as people with normal vision, protanopia,
// deuteranopia and tritanopia see them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { contrast, hex, worst } from "../lib/colour.mjs";
import { root } from "../lib/conch.mjs";

const css = readFileSync(join(root, "web", "src", "styles.css"), "utf8");

function theme(block) {
  const vars = Object.fromEntries([...block.matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{6})\s*;/g)].map((m) => [m[1], m[2].toLowerCase()]));
  const chart = Object.keys(vars)
    .filter((k) => /^nc-chart-\d+$/.test(k))
    .sort((a, b) => Number(a.split("-").pop()) - Number(b.split("-").pop()))
    .map((k) => vars[k]);
  return { chart, panel: vars.panel };
}

const light = theme(css.slice(css.indexOf(":root {"), css.indexOf("@media (prefers-color-scheme: dark)")));
const dark = theme(css.slice(css.indexOf("@media (prefers-color-scheme: dark)"), css.indexOf("* { box-sizing")));

for (const [name, t] of [["light", light], ["dark", dark]]) {
  test(`the ${name} chart colours: eight, each 3:1 against the panel, any two apart in every kind of colour vision`, () => {
    assert.equal(t.chart.length, 8, t.chart.join(" "));
    assert.ok(t.panel, "the panel's colour");
    for (const c of t.chart) {
      const ratio = contrast(hex(c), hex(t.panel));
      assert.ok(ratio >= 3, `${c} on ${t.panel}: ${ratio.toFixed(2)}:1`);
    }
    const w = worst(t.chart);
    assert.ok(w.min >= 10, `closest pair ${w.pair.join(" ")}: ΔE2000 ${w.min.toFixed(2)}`);
  });
}

test("the check can fail: a palette with two reds close for protanopia is caught", () => {
  const w = worst(["#d55e00", "#8a6d00", "#0072b2"]);
  assert.ok(w.min < 10, `${w.min}`);
  assert.equal(w.pair[2], "protan");
});
