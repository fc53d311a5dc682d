// Skills: the page names Conch's skills folder, the one a person adds a
// skill to, with Copy; a skill folder put there shows up, off until it is
// turned on. At desktop and phone sizes.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { browser, signIn, startConch } from "../lib/conch.mjs";

for (const [name, viewport] of [
  ["desktop", { width: 1280, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`${name}: the skills page names the folder to add a skill to, and one put there shows`, async () => {
    const conch = await startConch();
    const b = await browser(viewport);
    try {
      const { page } = b;
      await signIn(page, conch.url);
      await page.goto(`${conch.url}/skills`);
      const folder = join(conch.home, "skills");
      const line = page.locator(".skills-folder code");
      await line.waitFor();
      assert.equal(await line.innerText(), folder);
      await page.getByRole("button", { name: "Copy the skills folder's path" }).click();
      // The button says what became of it (Copied, or why it couldn't).
      await page.waitForFunction(() => document.querySelector(".skills-folder button")?.textContent !== "Copy");
      assert.equal(await page.locator(".skills-folder button").innerText(), "Copied");

      const skill = join(folder, "zeitplan");
      mkdirSync(skill, { recursive: true });
      writeFileSync(
        join(skill, "SKILL.md"),
        "---\nname: zeitplan\ndescription: Plant die Woche – Termine ordnen.\n---\nOrdne die Termine der Woche.\n",
      );
      await page.reload();
      const row = page.locator(".skill-list li", { hasText: "zeitplan" });
      await row.waitFor();
      assert.match(await row.innerText(), /zeitplan/);
    } finally {
      await b.close();
      conch.stop();
    }
  });
}
