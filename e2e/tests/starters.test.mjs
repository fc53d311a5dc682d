// The first screen: a focused message box with a few lines to start with
// that work with the engine in use (here the practice engine), and, with
// no model set up, the way to add one beside them. At desktop and phone
// sizes.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, shot, signIn, startConch } from "../lib/conch.mjs";

for (const [name, viewport] of [
  ["desktop", { width: 1280, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`${name}: a new chat offers starters that work, and Add a model with none set up`, async () => {
    const conch = await startConch();
    const b = await browser(viewport);
    try {
      const { page } = b;
      await signIn(page, conch.url);
      await newChat(page);
      const starters = page.getByRole("list", { name: "Ways to start" });
      await starters.waitFor();
      assert.ok((await starters.getByRole("button").count()) >= 3);
      const add = page.locator(".starters").getByRole("link", { name: "Add a model" });
      assert.equal(await add.getAttribute("href"), "/settings/models");
      await shot(page, `65-starters-${name}`);
      await starters.getByRole("button", { name: "Make me a chart of this week's steps" }).click();
      await page.locator(".artifact-card").first().waitFor();
      await idle(page);
      assert.equal(await page.locator(".starters").count(), 0, "gone once the chat has begun");
      // The artifact's card stands for the call that made it: no raw card.
      assert.equal(await page.locator(".tool").count(), 0);
      if (name === "phone") {
        // The drawer takes the focus, and Esc closes it. (The chart slid
        // over the chat first: back to it.)
        await page.getByRole("button", { name: "← Back to the chat" }).click();
        const menu = page.getByRole("button", { name: "Chats and pages" }).first();
        await menu.click();
        await page.waitForFunction(() => document.activeElement?.closest(".sidebar") !== null);
        await page.keyboard.press("Escape");
        await page.waitForFunction(() => !document.querySelector(".shell.menu-open"));
        assert.equal(await menu.getAttribute("aria-expanded"), "false");
      }
      assert.deepEqual(b.appErrors(), []);
    } finally {
      await b.close();
      conch.stop();
    }
  });
}
