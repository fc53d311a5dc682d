import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, pages, send, shot, signIn, startConch, PASSWORD } from "../lib/conch.mjs";

test("Activity lists what was done and opens the chat at that moment", async () => {
  const site = await pages({ "/news": "<p>News of the day.</p>" });
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    await send(page, `read ${site.base}/news`);
    await idle(page);
    await send(page, "run `echo from-activity`");
    await page.locator(".question.pending").waitFor();
    await page.locator(".question.pending").getByRole("button", { name: "Once" }).click();
    await idle(page);
    // Many more turns, so the command is far from the end of the chat.
    for (let i = 0; i < 12; i++) {
      await send(page, `hello ${i}`);
      await idle(page);
    }
    await page.getByRole("link", { name: "Activity" }).click();
    const row = page.locator(".activity-row", { hasText: "Ran `echo from-activity`" });
    await row.waitFor();
    assert.match(await row.innerText(), /exit code 0/);
    await page.locator(".activity-row", { hasText: "Read a page from 127.0.0.1" }).waitFor();
    await page.locator(".activity-row.kind-question", { hasText: "you allowed once" }).waitFor();
    await page.locator(".activity-list .day h2", { hasText: "Today" }).waitFor();
    // Filter chips.
    await page.getByRole("button", { name: "Commands" }).click();
    await page.waitForFunction(() => [...document.querySelectorAll(".activity-row")].every((r) => r.classList.contains("kind-command")));
    await shot(page, "14-activity");
    // The row opens the chat at that event, marked.
    await row.locator(".chat-link").click();
    const target = page.locator(".transcript > li.highlight");
    await target.waitFor();
    assert.match(await target.innerText(), /echo from-activity/);
    const box = await target.boundingBox();
    const viewport = page.viewportSize();
    assert.ok(box && box.y >= 0 && box.y < viewport.height, "scrolled into view");
    await shot(page, "15-chat-at-moment");
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    conch.stop();
    site.close();
  }
});

test("a question still waiting is answered from Activity, and new rows come in", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    const chat = page.url();
    await send(page, "run `echo waiting-one`");
    await page.locator(".question.pending").waitFor();
    await page.getByRole("link", { name: "Activity" }).click();
    await page.getByRole("button", { name: "Still waiting" }).click();
    const row = page.locator(".activity-row.waiting", { hasText: "echo waiting-one" });
    await row.waitFor();
    await row.getByRole("button", { name: "Once" }).click();
    await row.waitFor({ state: "detached", timeout: 10000 });
    // Back in everything: the command ran, and shows up without a reload.
    await page.getByRole("button", { name: "Everything" }).click();
    await page.locator(".activity-row", { hasText: "Ran `echo waiting-one`" }).locator("text=exit code 0").waitFor({ timeout: 10000 });
    assert.ok(chat.includes("/chats/"));
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    conch.stop();
  }
});

/** Waits (up to 5 s) until `read()` gives `want`, then asserts it. */
async function settled(read, want) {
  const end = Date.now() + 5000;
  let got = await read();
  while (got !== want && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    got = await read();
  }
  assert.equal(got, want);
}

test("turning a Safety preference off asks for the password", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("link", { name: "Safety and the security checkup" }).click();
    const toggle = page.getByRole("switch", { name: "Seal commands" });
    await toggle.waitFor();
    assert.equal(await toggle.isChecked(), true);
    await toggle.click();
    // It asks, says what could happen, and is still on.
    const ask = page.locator(".pref .confirm");
    await ask.waitFor();
    assert.match(await ask.innerText(), /full access/);
    assert.equal(await toggle.isChecked(), true);
    await shot(page, "16-safety-asks");
    await page.getByLabel("Your password").fill("wrong password");
    await page.getByRole("button", { name: "Turn it off" }).click();
    await page.locator(".security .error", { hasText: "That password isn't right." }).waitFor();
    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Turn it off" }).click();
    await page.waitForFunction(() => !document.querySelector(".pref .confirm"));
    // The switch follows the server's answer, a moment after the form goes.
    await settled(() => toggle.isChecked(), false);
    // The checkup shows it, with a one-press fix.
    const check = page.locator('.checks li[data-check="sealed-commands"]');
    await check.locator("text=Seal commands is off").waitFor();
    await shot(page, "17-checkup");
    await check.getByRole("button", { name: "Turn it back on" }).click();
    await page.locator('.checks li.ok[data-check="sealed-commands"]').waitFor();
    await settled(() => toggle.isChecked(), true);
    // The wrong password above is refused with a 401, which Chromium logs.
    assert.deepEqual(b.errors.filter((e) => !e.includes("401")), []);
  } finally {
    await b.close();
    conch.stop();
  }
});
