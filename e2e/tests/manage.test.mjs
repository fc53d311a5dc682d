// Chats you can manage: renamed in place (titles are plain text), archived
// and brought back, deleted (asked once; the log goes to the trash), copy on
// messages and code blocks, Retry on a failed turn, Edit and resend of the
// owner's last message (a new turn; the old one kept and folded).

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { browser, idle, newChat, send, shot, signIn, startConch } from "../lib/conch.mjs";
import { addProvider, modelServer } from "../lib/model.mjs";

test("rename, archive, delete asked once; titles are plain text; copy on messages and code", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page, context } = b;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: conch.url });
    await signIn(page, conch.url);
    await newChat(page);
    await send(page, "run `ls -la` **now**");
    await page.locator(".question.pending").getByRole("button", { name: "Once" }).click();
    await idle(page);
    // The title is plain text: no backticks, no stars.
    const item = page.locator(".chat-list li a").first();
    await item.locator(".title", { hasText: "run ls -la now" }).waitFor();
    await page.locator(".chat-head .chat-title", { hasText: "run ls -la now" }).waitFor();

    // Rename in place: Enter keeps it, as typed.
    await page.locator(".title-button").click();
    const input = page.getByLabel("Chat name");
    await input.fill("Plans for the week — été 🌊");
    await input.press("Enter");
    await item.locator(".title", { hasText: "Plans for the week — été 🌊" }).waitFor();
    // Escape leaves it as it was.
    await page.locator(".title-button").click();
    await page.getByLabel("Chat name").fill("not this");
    await page.getByLabel("Chat name").press("Escape");
    await page.waitForTimeout(300);
    assert.equal(await item.locator(".title").innerText(), "Plans for the week — été 🌊");

    // Copy a message, and a code block of the answer.
    await page.locator(".message.from-owner").first().getByRole("button", { name: "Copy what you wrote" }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "run `ls -la` **now**");
    const code = page.locator(".reply .code-block").first();
    await code.getByRole("button", { name: "Copy this code" }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.ok(copied.includes("[exit code 0]"), copied);
    assert.equal(copied.trim(), (await code.locator("pre").innerText()).trim());

    // Archive: out of the list, under Archived, and back.
    const id = page.url().split("/").pop();
    await page.locator(".chat-head").getByRole("button", { name: "Archive" }).click();
    await page.locator(".chat-list li a").first().waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Archived (1)" }).click();
    await page.locator(".chat-list a", { hasText: "Plans for the week" }).click();
    await page.locator(".chat-head").getByRole("button", { name: "Bring back" }).click();
    await page.getByRole("button", { name: "Back to your chats" }).click();
    await page.locator(".chat-list a", { hasText: "Plans for the week" }).waitFor();

    // Delete asks once, with the safe answer focused.
    await page.locator(".chat-head").getByRole("button", { name: "Delete" }).click();
    const ask = page.getByRole("alertdialog", { name: "Delete this chat?" });
    await ask.waitFor();
    assert.match(await ask.innerText(), /trash, which keeps it 30 days/);
    // The safe answer takes the focus as the question is drawn (an effect,
    // a moment after it shows).
    await page.waitForFunction(() => document.activeElement?.textContent === "Keep it", null, { timeout: 2000 });
    await shot(page, "45-delete-asked-once");
    await ask.getByRole("button", { name: "Keep it" }).click();
    assert.equal(await page.locator(".chat-list a", { hasText: "Plans for the week" }).count(), 1);
    await page.locator(".chat-head").getByRole("button", { name: "Delete" }).click();
    await page.getByRole("alertdialog", { name: "Delete this chat?" }).getByRole("button", { name: "Delete" }).click();
    await page.waitForFunction((gone) => !location.pathname.includes(gone), id);
    await page.locator(".chat-list a", { hasText: "Plans for the week" }).waitFor({ state: "detached" });
    // The log is in the trash, whole.
    const trashed = join(conch.home, "trash", "chats", id);
    assert.ok(existsSync(join(trashed, "deleted")));
    assert.ok(readFileSync(join(trashed, "log.jsonl"), "utf8").includes("Plans for the week"));
    assert.equal((await page.request.get(`${conch.url}/api/chats/${id}`)).status(), 404);
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("Retry a failed turn, and Edit and resend the last message: new turns, the old ones kept", async () => {
  const conch = await startConch();
  const b = await browser();
  const model = await modelServer([
    { status: 401, message: "bad key" },
    { text: "Hello after the retry." },
    { text: "An answer to the edit." },
    { text: "Another answer, made again." },
  ]);
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await addProvider(page, { name: "local", kind: "openai", baseUrl: model.openai, model: "scripted-1", key: "sk-e2e" });
    await newChat(page);
    await send(page, "hello there");
    const error = page.locator(".line.turn-error");
    await error.waitFor();
    assert.match(await error.innerText(), /refused the key \(HTTP 401\)/);
    // It points to the page that fixes it, not only to a terminal.
    assert.equal(await error.getByRole("link", { name: "Settings → Passwords" }).getAttribute("href"), "/settings/passwords");
    await error.getByRole("button", { name: "Retry" }).click();
    await page.locator(".reply", { hasText: "Hello after the retry." }).waitFor();
    await idle(page);
    // The failed try is folded, kept; the retry is marked as one.
    const earlier = page.locator(".earlier");
    assert.equal(await earlier.count(), 1);
    assert.match(await earlier.locator("summary").innerText(), /An earlier try, kept in the chat's log/);
    assert.equal(await page.locator(".message.from-owner:not(.earlier .message)").last().locator(".who").innerText(), "Tried again");
    assert.equal(await page.locator(".line.turn-error").filter({ visible: true }).count(), 0, "no Retry left");

    // Edit and resend: the words come back in a box; a new turn answers.
    await page.getByRole("button", { name: "Edit and resend" }).click();
    const box = page.getByLabel("Edit what you wrote");
    assert.equal(await box.inputValue(), "hello there");
    await box.fill("hello, with an edit");
    await box.press("Enter");
    await page.locator(".reply", { hasText: "An answer to the edit." }).waitFor();
    await idle(page);
    await shot(page, "46-edit-and-resend");
    // What the model saw: only the branch that stands.
    const users = (req) => req.body.messages.filter((m) => m.role === "user").map((m) => m.content);
    assert.deepEqual(users(model.seen[2]), ["hello, with an edit"]);
    // The log keeps all three messages.
    const texts = await page.evaluate(async () => {
      const id = location.pathname.split("/").pop();
      const events = await (await fetch(`/api/chats/${id}/events`)).json();
      return events.filter((e) => e.type === "message").map((e) => e.text);
    });
    assert.deepEqual(texts, ["hello there", "hello there", "hello, with an edit"]);
    // The earlier tries open to show what they were.
    await page.locator(".earlier summary").first().click();
    await page.locator(".earlier .reply", { hasText: "Hello after the retry." }).waitFor();

    // Regenerate on a good answer: a new one, the old one kept.
    const good = page.locator(".reply:not(.earlier .reply)", { hasText: "An answer to the edit." });
    await good.getByRole("button", { name: "Regenerate" }).click();
    await page.locator(".reply", { hasText: "Another answer, made again." }).waitFor();
    await idle(page);
    assert.equal(await page.locator(".message.from-owner:not(.earlier .message)").last().locator(".who").innerText(), "Tried again");
    assert.deepEqual(users(model.seen[3]), ["hello, with an edit"]);
    assert.equal(await page.getByRole("button", { name: "Regenerate" }).count(), 1, "only on the last answer");
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    conch.stop();
    model.close();
  }
});
