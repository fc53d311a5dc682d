// Undo a turn's changes from the page: a sealed command edits a file in
// place (`sed -i`) and makes another; the turn says what it changed, Undo
// this turn's changes puts the first back and removes the second, a file
// the owner changed since is left alone with why, and Undo this undo
// brings the turn's changes back. At desktop and phone sizes, with axe.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { axe } from "../lib/axe.mjs";
import { browser, idle, newChat, send, shot, signIn, startConch } from "../lib/conch.mjs";

for (const [name, viewport] of [
  ["desktop", { width: 1280, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`${name}: a turn's changes are undone from the page, and the undo is undone`, async () => {
    const conch = await startConch();
    const b = await browser(viewport);
    try {
      const { page } = b;
      const notes = join(conch.work, "notes.txt");
      const mine = join(conch.work, "à-moi.txt");
      writeFileSync(notes, "rendez-vous avant midi\n");
      writeFileSync(mine, "v1\n");
      await signIn(page, conch.url);
      await newChat(page);
      await send(page, "run `sed -i 's/avant/après/' notes.txt && echo neu > neu.txt && echo v2 > à-moi.txt`");
      await page.locator(".question.pending").getByRole("button", { name: "Once" }).click();
      const changes = page.locator(".line.changes");
      await changes.waitFor();
      assert.match(await changes.innerText(), /This turn changed 3 files: /);
      await idle(page);
      assert.equal(readFileSync(notes, "utf8"), "rendez-vous après midi\n");

      // The owner changes one of them by hand before undoing.
      writeFileSync(mine, "v3, à moi\n");
      await changes.getByRole("button", { name: "Undo this turn's changes" }).click();
      const restored = page.locator(".line.restored").first();
      await restored.waitFor();
      const said = await restored.innerText();
      assert.match(said, /Undid this turn's changes: put back 1 file \(notes\.txt\); removed 1 file the turn made \(neu\.txt\)\./);
      assert.match(said, /Left .*à-moi\.txt as it is\. It changed after this turn/);
      assert.equal(readFileSync(notes, "utf8"), "rendez-vous avant midi\n");
      assert.equal(existsSync(join(conch.work, "neu.txt")), false);
      assert.equal(readFileSync(mine, "utf8"), "v3, à moi\n");
      await shot(page, `70-undone-${name}`);
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        assert.deepEqual(await axe(page), [], `axe, ${scheme}`);
      }

      await restored.getByRole("button", { name: "Undo this undo" }).click();
      await page.locator(".line.restored", { hasText: "Undid the undo" }).waitFor();
      assert.equal(readFileSync(notes, "utf8"), "rendez-vous après midi\n");
      assert.equal(readFileSync(join(conch.work, "neu.txt"), "utf8"), "neu\n");
      assert.deepEqual(b.appErrors(), []);
    } finally {
      await b.close();
      conch.stop();
    }
  });
}
