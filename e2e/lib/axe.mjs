// axe-core, run in the page: the violations of impact serious or critical.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const source = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** Rules reported whatever axe calls their impact: headings in order
 *  (moderate to axe) and scrolling parts reachable from the keyboard. */
const ALWAYS = ["heading-order", "scrollable-region-focusable"];

/** Runs axe on the page as it is now; returns serious and critical
 *  violations, and any of `ALWAYS`, as lines ("rule: target — summary"). */
export async function axe(page) {
  // Playwright's evaluate isn't subject to the page's CSP, which forbids
  // inline scripts: axe runs without loosening it.
  if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.evaluate(source);
  const found = await page.evaluate(async (always) => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical" || always.includes(v.id))
      .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")} — ${n.failureSummary?.split("\n").slice(0, 3).join(" ")}`));
  }, ALWAYS);
  return found;
}
