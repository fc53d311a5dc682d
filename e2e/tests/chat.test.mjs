import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, send, shot, signIn, startConch } from "../lib/conch.mjs";

test("sign in, start a chat with the mock engine, and see the reply stream", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await page.goto(conch.url + "/");
    await shot(page, "01-sign-in");
    await signIn(page, conch.url);
    await newChat(page);
    await shot(page, "02-new-chat");
    await send(page, "help");
    // The words arrive while the turn runs...
    await page.locator(".reply.streaming").first().waitFor({ timeout: 10000 });
    const partial = await page.locator(".reply.streaming").first().innerText();
    // ...and the whole reply stays when it ends.
    await idle(page);
    const reply = page.locator(".reply:not(.streaming)").last();
    await reply.waitFor();
    const full = await reply.innerText();
    assert.ok(full.includes("mock engine"), full);
    assert.ok(full.length > partial.length, "it grew while streaming");
    assert.equal(await page.locator(".reply.streaming").count(), 0);
    // The chat is in the sidebar, named by the first message.
    await page.locator(".chat-list a", { hasText: "help" }).waitFor();
    await shot(page, "03-chat");
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    conch.stop();
  }
});
