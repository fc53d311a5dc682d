// Stop everything from the page: the sidebar's Stop all (desktop) or ⌘K's
// Stop everything (phone) ends the waiting
// question, the bar says Conch is stopped, a message is refused with what
// to do, and Resume (on the bar) lets it act again. At desktop and phone
// sizes, with axe on the stopped page.

import { test } from "node:test";
import assert from "node:assert/strict";
import { axe } from "../lib/axe.mjs";
import { browser, idle, newChat, send, shot, signIn, startConch } from "../lib/conch.mjs";

for (const [name, viewport] of [
  ["desktop", { width: 1280, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`${name}: Stop all ends what runs, says so, refuses a message, and Resume lets Conch act again`, async () => {
    const conch = await startConch();
    const b = await browser(viewport);
    try {
      const { page } = b;
      await signIn(page, conch.url);
      await newChat(page);
      await send(page, "run `sleep 20`");
      await page.locator(".question.pending").waitFor();

      if (name === "desktop") {
        // The sidebar's own switch.
        await page.getByRole("switch", { name: "Stop all" }).click();
      } else {
        const find = page.getByRole("button", { name: "Find" });
        if (await find.isVisible()) await find.click();
        else await page.keyboard.press("Control+k");
        await page.getByRole("combobox", { name: "Find chats, skills and commands" }).fill("stop every");
        await page.getByRole("option", { name: /^Stop everything/ }).click();
      }
      const bar = page.locator(".stopped-bar");
      await bar.waitFor();
      assert.match(await bar.innerText(), /Conch is stopped \(from this page\)/);
      await page.locator(".question.done", { hasText: "Stopped before it was answered." }).waitFor();
      await shot(page, `68-stopped-${name}`);
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        assert.deepEqual(await axe(page), [], `axe, ${scheme}`);
      }

      // A message is refused, with what to do.
      await page.getByLabel("Message").fill("hello again");
      await page.getByLabel("Message").press("Enter");
      await page.getByText(/Conch is stopped: nothing runs until you press Resume/).first().waitFor();

      if (name === "desktop") assert.equal(await page.getByRole("switch", { name: "Stop all" }).getAttribute("aria-checked"), "true");
      await bar.getByRole("button", { name: "Resume" }).click();
      await bar.waitFor({ state: "detached" });
      await send(page, "hello after resume");
      await idle(page);
      assert.deepEqual(b.appErrors().filter((e) => !/status of 409/.test(e)), []);
    } finally {
      await b.close();
      conch.stop();
    }
  });
}
