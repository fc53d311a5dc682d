import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, send, shot, signIn, startConch, writeSkill } from "../lib/conch.mjs";

test("a question answered from the keyboard alone", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    await send(page, "run `echo by-keyboard`");
    await page.locator(".question.pending").waitFor();
    // The composer still has focus: move off it with the keyboard, then
    // answer with the card's key.
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Escape");
    await page.locator("body").focus();
    await page.keyboard.press("o");
    await idle(page);
    await page.locator(".question .answered", { hasText: "Allowed once." }).waitFor();
    await page.locator(".tool", { hasText: "echo by-keyboard" }).locator(".output", { hasText: "by-keyboard" }).waitFor();
    // And by Tab and Enter: the card's buttons are in the tab order.
    await send(page, "run `echo tabbed`");
    await page.locator(".question.pending").waitFor();
    const deny = page.locator(".question.pending").getByRole("button", { name: "Deny" });
    for (let i = 0; i < 40 && !(await deny.evaluate((el) => el === document.activeElement)); i++) {
      await page.keyboard.press("Tab");
    }
    assert.ok(await deny.evaluate((el) => el === document.activeElement), "Deny can be reached with Tab");
    await page.keyboard.press("Enter");
    await idle(page);
    await page.locator(".question .answered", { hasText: "You said no." }).waitFor();
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("on a phone the sidebar folds away and everything still works", async () => {
  const conch = await startConch();
  const b = await browser({ width: 390, height: 844 });
  try {
    const { page } = b;
    await page.goto(conch.url + "/");
    await shot(page, "08-phone-sign-in");
    await signIn(page, conch.url);
    // The sidebar is folded away; the menu button brings it.
    const sidebar = page.locator(".sidebar");
    const box = await sidebar.boundingBox();
    assert.ok(!box || box.x + box.width <= 0, "folded away");
    await page.getByRole("button", { name: "Chats and pages" }).click();
    await page.waitForTimeout(300);
    await sidebar.getByRole("button", { name: "New chat" }).click();
    await page.getByLabel("Message").waitFor();
    await send(page, "make me a chart");
    await idle(page);
    await page.locator(".artifact-card", { hasText: "Weekly numbers" }).waitFor();
    await shot(page, "09-phone-chat");
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("skills, settings and Ctrl K, with no console errors", async () => {
  const conch = await startConch((home) => {
    writeSkill(home, "quick-setup", "permissions:\n  commands: [git]\n");
    writeSkill(home, "sneaky", "");
  });
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await page.getByRole("link", { name: "Skills" }).click();
    await page.locator(".skill-list a", { hasText: "quick-setup" }).waitFor();
    await shot(page, "10-skills");
    await page.locator(".skill-list a", { hasText: "quick-setup" }).click();
    await page.locator(".skill-detail h2", { hasText: "quick-setup" }).waitFor();
    assert.match(await page.locator(".skill-detail").innerText(), /Commands: git/);
    await shot(page, "11-skill");
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Access keys" }).waitFor();
    await page.getByLabel("Key name").fill("backup-script");
    await page.getByRole("button", { name: "Make a key" }).click();
    await page.locator(".made-key pre").waitFor();
    assert.match(await page.locator(".made-key pre").innerText(), /^conch_/);
    await shot(page, "12-settings");
    // Ctrl K finds a chat, a skill, or a command.
    await page.keyboard.press("Control+k");
    await page.getByLabel("Find chats, skills and commands").fill("new chat");
    await page.keyboard.press("Enter");
    await page.getByLabel("Message").waitFor();
    await send(page, "/quick-setup hi");
    await idle(page);
    await page.keyboard.press("Control+k");
    await page.getByLabel("Find chats, skills and commands").fill("stop holding");
    assert.match(await page.locator(".palette li.at").innerText(), /Stop holding this chat to quick-setup's list/);
    await shot(page, "13-palette");
    page.once("dialog", (d) => d.accept());
    await page.keyboard.press("Enter");
    await page.locator(".line.hold-ended").waitFor();
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("sign out everywhere ends every browser's session", async () => {
  const conch = await startConch();
  const first = await browser();
  const second = await browser();
  try {
    await signIn(first.page, conch.url);
    await signIn(second.page, conch.url);
    await first.page.getByRole("link", { name: "Settings" }).click();
    first.page.once("dialog", (d) => d.accept());
    await first.page.getByRole("button", { name: "Sign out everywhere" }).click();
    await first.page.getByLabel("Password").waitFor();
    // The other browser's session ended too.
    const status = await second.page.evaluate(async () => (await fetch("/api/session")).status);
    assert.equal(status, 401);
    // And signing in again works. (Requests the page had in flight when the
    // session ended were refused: the browser logs those 401s.)
    await signIn(first.page, conch.url);
    assert.deepEqual(first.errors.filter((e) => !e.includes("401")), []);
  } finally {
    await first.close();
    await second.close();
    conch.stop();
  }
});
