import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, shot, signIn, startConch } from "../lib/conch.mjs";

test("a routine made from the Routines page runs now as its own chat, listed under it", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await page.getByRole("link", { name: "Routines" }).click();
    await page.getByText("No routines yet.").waitFor();
    // A schedule that doesn't read is a sentence, and nothing is made.
    await page.getByLabel("When").fill("every fortnight-ish");
    await page.getByLabel("What to do each time").fill("Résumé de ma boîte — 要約");
    await page.getByRole("button", { name: "Make the routine" }).click();
    await page.locator(".routines .error").waitFor();
    assert.match(await page.locator(".routines .error").innerText(), /\S+\./);
    await page.getByLabel("When").fill("every weekday at 8:00");
    await page.getByLabel("Mode").selectOption("full");
    await page.getByRole("button", { name: "Make the routine" }).click();
    const item = page.locator(".routines-list li", { hasText: "Résumé de ma boîte — 要約" });
    await item.waitFor();
    assert.match(await item.innerText(), /every weekday at 8:00/);
    assert.match(await item.innerText(), /full/);
    await shot(page, "routines-1-made");
    await item.getByRole("button", { name: "Run now" }).click();
    await page.waitForURL(/\/chats\//);
    await page.locator(".transcript", { hasText: "Résumé de ma boîte — 要約" }).waitFor();
    await page.getByRole("link", { name: "Routines" }).click();
    await page.locator(".routines-list li summary", { hasText: "1 run" }).waitFor();
    // The bad schedule and the bad token were refused with 400 on purpose.
    assert.deepEqual(b.errors.filter((e) => !e.includes("status of 400")), []);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("Settings lets the owner save a bot token, make a link code, and allow someone", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("link", { name: /^Telegram/ }).click();
    await page.getByRole("heading", { name: "Chat apps", level: 1 }).waitFor();
    const apps = page.locator(".chat-apps");
    // Each way to be told can be turned off, and stays off.
    const onPage = apps.getByLabel("Tell me on this page");
    assert.equal(await onPage.isChecked(), true);
    // Saved when the answer comes back: reload after it, not before.
    const saved = page.waitForResponse((r) => r.url().endsWith("/api/settings/notifications") && r.request().method() === "POST");
    await onPage.uncheck();
    assert.equal((await saved).status(), 200);
    await page.reload();
    assert.equal(await page.locator(".chat-apps").getByLabel("Tell me on this page").isChecked(), false);
    await apps.getByLabel("Bot token").fill("not a token");
    await apps.getByRole("button", { name: "Save" }).click();
    await apps.locator(".error").waitFor();
    await apps.getByLabel("Bot token").fill("123456:AAE-test_token");
    await apps.getByRole("button", { name: "Save" }).click();
    await apps.getByRole("button", { name: "Link my account" }).click();
    const code = await apps.locator("pre").innerText();
    assert.match(code, /^\/link [A-Z2-9]{8}$/);
    await apps.getByLabel("Their id or @handle").fill("@Eve_X");
    await apps.getByRole("button", { name: "Allow" }).click();
    const eve = apps.locator("li", { hasText: "@eve_x" });
    await eve.waitFor();
    assert.match(await eve.innerText(), /hasn't written yet/);
    await shot(page, "routines-2-chat-apps");
    await eve.getByRole("button", { name: "Remove" }).click();
    await apps.getByText("Nobody: strangers are told you haven't allowed them.").waitFor();
    // The bad schedule and the bad token were refused with 400 on purpose.
    assert.deepEqual(b.errors.filter((e) => !e.includes("status of 400")), []);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("a routine's question shows as Needs you and is answered from Activity", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await page.getByRole("link", { name: "Routines" }).click();
    await page.getByLabel("When").fill("0 8 * * 1-5");
    await page.getByLabel("What to do each time").fill("run `echo from-a-routine`");
    await page.getByRole("button", { name: "Make the routine" }).click();
    const item = page.locator(".routines-list li", { hasText: "echo from-a-routine" });
    await item.getByRole("button", { name: "Run now" }).click();
    await page.waitForURL(/\/chats\//);
    // Nobody is there in a routine's chat: the question waits for the owner.
    const needs = page.locator(".needs-you");
    await needs.waitFor({ timeout: 15000 });
    assert.match(await needs.innerText(), /Needs you \(1\)/);
    await needs.click();
    const row = page.locator(".activity-row.waiting", { hasText: "echo from-a-routine" });
    await row.waitFor();
    await shot(page, "routines-3-needs-you");
    await row.getByRole("button", { name: "Once" }).click();
    await row.waitFor({ state: "detached", timeout: 10000 });
    await needs.waitFor({ state: "detached", timeout: 15000 });
    // It ran, once.
    await page.getByRole("button", { name: "Everything" }).click();
    await page.locator(".activity-row", { hasText: "Ran `echo from-a-routine`" }).locator("text=exit code 0").waitFor({ timeout: 10000 });
    await page.locator(".activity-row.kind-routine", { hasText: "echo from-a-routine" }).waitFor();
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    conch.stop();
  }
});
