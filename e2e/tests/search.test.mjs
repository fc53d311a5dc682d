// Search inside chats: the sidebar's search box and ⌘K find words in
// messages, replies and a command's output, in any case or accent, with
// the line that holds them marked; choosing one opens its chat at that
// line. At desktop and phone sizes, with axe on the results in light and
// dark.

import { test } from "node:test";
import assert from "node:assert/strict";
import { axe } from "../lib/axe.mjs";
import { browser, idle, newChat, send, shot, signIn, startConch } from "../lib/conch.mjs";

for (const [name, viewport] of [
  ["desktop", { width: 1280, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`${name}: words inside chats are found with their line, and open the chat there`, async () => {
    const conch = await startConch();
    const b = await browser(viewport);
    try {
      const { page } = b;
      await signIn(page, conch.url);
      await newChat(page);
      await send(page, "Bitte die Rechnung für März prüfen");
      await idle(page);
      const invoices = page.url().split("/").pop();
      await newChat(page);
      await send(page, "run `echo Quartalsbericht_fertig`");
      await page.locator(".question.pending").waitFor();
      await page.keyboard.press("Escape");
      await page.keyboard.press("o");
      await idle(page);
      const report = page.url().split("/").pop();
      await newChat(page);
      await send(page, "Something else entirely");
      await idle(page);

      // The sidebar (on a phone, behind ☰).
      const menu = page.getByRole("button", { name: "Chats and pages" });
      if (await menu.isVisible()) await menu.click();
      const box = page.locator(".sidebar").getByRole("searchbox", { name: "Search chats" });
      await box.fill("MARZ rechnung");
      const found = page.locator(".found-list a").first();
      await found.waitFor();
      assert.match(await found.innerText(), /Rechnung für März/);
      assert.deepEqual(await page.locator(".found-list a").first().locator("mark").allInnerTexts(), ["Rechnung", "März"]);
      await shot(page, `66-search-inside-${name}`);
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        assert.deepEqual(await axe(page), [], `axe, ${scheme}`);
      }
      await found.click();
      await page.waitForFunction((want) => location.pathname === `/chats/${want}`, invoices);
      await page.locator(".transcript > li.highlight").waitFor();

      // A command's output, from ⌘K (the phone's Find button).
      const find = page.getByRole("button", { name: "Find" });
      if (await find.isVisible()) await find.click();
      else await page.keyboard.press("Control+k");
      const palette = page.getByRole("combobox", { name: "Find chats, skills and commands" });
      await palette.fill("quartalsbericht");
      // Its name matches too (a chat), then the lines inside it.
      await page.getByRole("option", { name: /Quartalsbericht_fertig Chat$/ }).waitFor();
      const option = page.getByRole("option", { name: /Quartalsbericht_fertig.* · Output$/ }).first();
      await option.waitFor();
      assert.deepEqual(await option.locator("mark").allInnerTexts(), ["Quartalsbericht"]);
      await option.click();
      await page.waitForFunction((want) => location.pathname === `/chats/${want}`, report);
      await page.locator(".transcript > li.highlight").waitFor();

      // Nothing found says so.
      if (await menu.isVisible()) await menu.click();
      await box.fill("zebrafinch");
      await page.locator(".found", { hasText: "No words inside a chat match." }).waitFor();
      assert.deepEqual(b.appErrors(), []);
    } finally {
      await b.close();
      conch.stop();
    }
  });
}
