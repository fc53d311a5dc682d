// Needs you: a chat waiting for an answer says so everywhere: the
// sidebar's badge, the tab's title, Activity's row, and (allowed from
// Settings) a notification from the browser when the page is hidden.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, send, shot, signIn, startConch } from "../lib/conch.mjs";

test("a waiting chat needs you: badge, title, Activity, and a notification when the page is hidden", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page, context } = b;
    await context.grantPermissions(["notifications"], { origin: conch.url });
    // What the Notifications API is asked to show, as the page asks it.
    await context.addInitScript(() => {
      const Real = window.Notification;
      window.__shown = [];
      class Seen extends Real {
        constructor(title, options) {
          super(title, options);
          window.__shown.push({ title, body: options?.body ?? "", tag: options?.tag ?? "" });
        }
      }
      window.Notification = Seen;
    });
    await signIn(page, conch.url);

    // Allowed from Settings.
    await page.goto(`${conch.url}/settings`);
    await page.getByRole("button", { name: "Tell me when a chat needs me" }).click();
    await page.getByText("On in this browser.").waitFor();

    await newChat(page);
    await send(page, "tidy up, then run `echo needs-you`");
    const card = page.locator(".question.pending");
    await card.waitFor();
    const item = page.locator(".chat-list li a").first();
    await item.locator(".when.needs", { hasText: "needs you" }).waitFor();
    await page.waitForFunction(() => document.title.startsWith("(1) Needs you"));
    await shot(page, "48-needs-you");
    // Visible: no notification.
    assert.deepEqual(await page.evaluate(() => window.__shown), []);
    await card.getByRole("button", { name: "Once" }).click();
    await idle(page);
    await page.waitForFunction(() => !document.title.includes("Needs you"));
    await item.locator(".when.needs").waitFor({ state: "detached" });

    // Activity's row while it waits.
    await send(page, "run `echo again`");
    await card.waitFor();
    const chat = page.url();
    await page.goto(`${conch.url}/activity`);
    const row = page.locator(".activity-row.waiting", { hasText: "echo again" });
    await row.waitFor();
    assert.match(await row.innerText(), /needs you/);
    await row.getByRole("button", { name: "Deny" }).click();
    await page.goto(chat);
    await idle(page);

    // Hidden: the page is told it can't be seen; a new question notifies.
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
      Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    const id = chat.split("/").pop();
    await page.evaluate(async (id) => {
      await fetch(`/api/chats/${id}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "run `echo while-away`" }),
      });
    }, id);
    await page.waitForFunction(() => window.__shown.length > 0, null, { timeout: 15000 });
    const shown = await page.evaluate(() => window.__shown);
    assert.equal(shown.length, 1);
    assert.equal(shown[0].title, "Conch needs you");
    assert.match(shown[0].body, /^tidy up, then run echo needs-you: a question is waiting for your answer\.$/);
    assert.equal(shown[0].tag, `conch-${id}`);
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    conch.stop();
  }
});
