// The trash: Esc keeps a chat the delete confirm asks about; a deleted
// chat has Undo for a moment; its Activity rows stay, marked "(chat
// deleted)"; Settings → Trash lists it and Restore puts it back whole.
// At desktop and phone sizes.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, send, shot, signIn, startConch } from "../lib/conch.mjs";

for (const [name, viewport] of [
  ["desktop", { width: 1280, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`${name}: delete, Undo, Activity marks it, and Settings → Trash restores it whole`, async () => {
    const conch = await startConch();
    const b = await browser(viewport);
    try {
      const { page } = b;
      await signIn(page, conch.url);
      await newChat(page);
      await send(page, "run `ls` für die Übersicht");
      await page.locator(".question.pending").waitFor();
      await page.keyboard.press("Escape");
      await page.keyboard.press("d");
      await idle(page);
      const id = page.url().split("/").pop();
      const askDelete = async () => {
        const more = page.getByRole("button", { name: "More for this chat" });
        if (await more.isVisible()) await more.click();
        await page.locator(".chat-head").getByRole("button", { name: "Delete" }).click();
        const ask = page.getByRole("alertdialog", { name: "Delete this chat?" });
        await ask.waitFor();
        return ask;
      };

      // Esc keeps it.
      let ask = await askDelete();
      await page.keyboard.press("Escape");
      await ask.waitFor({ state: "detached" });
      assert.ok(page.url().endsWith(id));

      // Deleted, then Undo: back, with what it had.
      ask = await askDelete();
      await ask.getByRole("button", { name: "Delete" }).click();
      const toast = page.locator(".undo-toast");
      await toast.waitFor();
      assert.match(await toast.innerText(), /moved to the trash/);
      await shot(page, `62-undo-after-delete-${name}`);
      await toast.getByRole("button", { name: "Undo" }).click();
      await page.waitForFunction((want) => location.pathname === `/chats/${want}`, id);
      await page.locator(".message.from-owner", { hasText: "für die Übersicht" }).waitFor();

      // Deleted again: Activity keeps its row, marked.
      ask = await askDelete();
      await ask.getByRole("button", { name: "Delete" }).click();
      await toast.waitFor();
      await page.goto(`${conch.url}/activity`);
      const marked = page.locator(".activity-row .chat-link", { hasText: "(chat deleted)" }).first();
      await marked.waitFor();

      // Settings → Trash lists it; Restore opens it again, whole.
      await page.goto(`${conch.url}/settings`);
      await page.getByRole("link", { name: /^Trash/ }).click();
      await page.getByRole("heading", { name: "Trash" }).waitFor();
      const restore = page.getByRole("button", { name: /^Restore / }).first();
      await restore.waitFor();
      await shot(page, `63-trash-${name}`);
      await restore.click();
      await page.waitForFunction((want) => location.pathname === `/chats/${want}`, id);
      await page.locator(".message.from-owner", { hasText: "für die Übersicht" }).waitFor();
      const trash = await (await page.request.get(`${conch.url}/api/trash`)).json();
      assert.deepEqual(trash.chats, []);
      assert.deepEqual(b.appErrors(), []);
    } finally {
      await b.close();
      conch.stop();
    }
  });
}
