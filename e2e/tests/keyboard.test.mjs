// The keyboard: after New chat the cursor is in the message box (and an
// empty chat is reused, not stacked); Escape leaves the box so a card's
// keys work; after answering, focus goes back to where it was; a card that
// appears on a fresh page takes focus; `?` lists the shortcuts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, send, shot, signIn, startConch } from "../lib/conch.mjs";

const focused = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a?.getAttribute("aria-label") || a?.textContent?.trim() || a?.tagName;
  });

test("New chat puts the cursor in the message box, and an empty chat is reused, not stacked", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    const newChat = page.locator(".sidebar").getByRole("button", { name: "New chat" });
    await newChat.click();
    await page.getByLabel("Message").waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Message");
    const first = page.url();
    // Again, with nothing written: the same chat, still one in the list.
    await newChat.click();
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Message");
    assert.equal(page.url(), first);
    await page.waitForTimeout(300);
    assert.equal(await page.locator(".chat-list li a").count(), 1, "one chat, not two");
    // Write in it: then New chat is a new one.
    await page.keyboard.type("hello");
    await page.keyboard.press("Enter");
    await idle(page);
    await newChat.click();
    await page.waitForFunction((before) => location.href !== before, first);
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Message");
    await page.locator(".chat-list li a").nth(1).waitFor();
    // A fresh load of a chat: zero Tab presses to the message box.
    await page.goto(first);
    await page.locator(".reply").first().waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Message");
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("Escape leaves the message box for the card; after answering, focus goes back; ? lists the shortcuts", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await page.locator(".sidebar").getByRole("button", { name: "New chat" }).click();
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Message");
    await page.keyboard.type("run `echo from-the-keyboard`");
    await page.keyboard.press("Enter");
    const card = page.locator(".question.pending");
    await card.waitFor();
    // The owner was typing: the card doesn't take the cursor away.
    assert.equal(await focused(page), "Message");
    // Escape: out of the box, onto the card; its keys work.
    await page.keyboard.press("Escape");
    assert.equal(await focused(page), "Once");
    await page.keyboard.press("o");
    await page.locator(".question.done .answered", { hasText: "Allowed once." }).waitFor();
    // Back where it was: the message box.
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Message");
    await idle(page);

    // A card that is waiting when the page opens takes focus, as before.
    await page.keyboard.type("run `echo on-reload`");
    await page.keyboard.press("Enter");
    await card.waitFor();
    await page.reload();
    await page.locator(".question.pending").waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent?.trim() === "Once");
    await shot(page, "43-card-has-focus");
    await page.keyboard.press("d");
    await page.locator(".question.done .answered", { hasText: "You said no." }).last().waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Message");
    await idle(page);

    // ?: the shortcuts, from anywhere but a text box; Escape closes them.
    await page.keyboard.press("Escape");
    await page.keyboard.press("?");
    const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await dialog.waitFor();
    const text = await dialog.innerText();
    for (const key of ["Ctrl K or ⌘K", "?", "Enter", "Escape", "o", "a", "d"]) assert.ok(text.includes(key), `${key} is listed`);
    await shot(page, "44-shortcuts");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    // Typing ? in the message box types it.
    await page.getByLabel("Message").click();
    await page.keyboard.type("why?");
    assert.equal(await page.getByLabel("Message").inputValue(), "why?");
    assert.equal(await page.getByRole("dialog", { name: "Keyboard shortcuts" }).count(), 0);
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    conch.stop();
  }
});
