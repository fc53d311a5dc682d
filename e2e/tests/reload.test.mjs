import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, send, signIn, startConch } from "../lib/conch.mjs";

/** Every transcript row's seq, in order. */
async function seqs(page) {
  return page.$$eval(".transcript > li[data-seq]", (els) => els.map((e) => Number(e.getAttribute("data-seq"))));
}

test("a reload mid-stream shows every event once, with no gap", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    const chatUrl = page.url();
    await send(page, "help");
    await page.locator(".reply.streaming").first().waitFor({ timeout: 10000 });
    // Mid-stream: reload.
    await page.reload();
    await page.getByLabel("Message").waitFor();
    await idle(page);
    await page.locator(".reply:not(.streaming)").first().waitFor();
    assert.equal(page.url(), chatUrl);
    assert.equal(await page.locator(".reply").count(), 1, "one reply, not two");
    assert.equal(await page.locator(".message.from-owner").count(), 1);
    // A second turn after the reload streams in too, and nothing repeats.
    await send(page, "hello");
    await idle(page);
    await page.locator(".reply:not(.streaming)").nth(1).waitFor();
    const rows = await seqs(page);
    assert.equal(new Set(rows).size, rows.length, `no row twice: ${rows}`);
    assert.deepEqual(rows, [...rows].sort((a, b) => a - b), "in order");
    // What the page shows is what the server has.
    const events = await page.evaluate(async (id) => (await fetch(`/api/chats/${id}/events`)).json(), chatUrl.split("/").pop());
    const shown = events.filter((e) => ["message", "reply"].includes(e.type)).map((e) => e.seq);
    const drawn = await page.$$eval(".transcript > li.message, .transcript > li.reply", (els) => els.map((e) => Number(e.getAttribute("data-seq"))));
    assert.deepEqual(drawn, shown);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("a dropped connection resumes without duplicates", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page, browser: chromium } = b;
    await signIn(page, conch.url);
    await newChat(page);
    await send(page, "hello");
    await idle(page);
    // Go offline, let a turn happen from another client, come back.
    const context = page.context();
    await context.setOffline(true);
    const id = page.url().split("/").pop();
    const other = await chromium.newContext();
    const res = await other.request.post(`${conch.url}/api/session`, { data: { password: "a long test password" } });
    assert.equal(res.status(), 200);
    const posted = await other.request.post(`${conch.url}/api/chats/${id}/messages`, { data: { text: "help" } });
    assert.equal(posted.status(), 202);
    await new Promise((r) => setTimeout(r, 2500));
    await context.setOffline(false);
    await page.locator(".reply:not(.streaming)").nth(1).waitFor({ timeout: 20000 });
    await idle(page);
    const rows = await seqs(page);
    assert.equal(new Set(rows).size, rows.length, `no row twice: ${rows}`);
    assert.equal(await page.locator(".message.from-owner").count(), 2);
    await other.close();
  } finally {
    await b.close();
    conch.stop();
  }
});
