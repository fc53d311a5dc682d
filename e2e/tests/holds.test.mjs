import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, send, shot, signIn, startConch, writeSkill } from "../lib/conch.mjs";

test("stop holding: asks once, the line goes, the transcript says so; not while an answer is written", async () => {
  const conch = await startConch((home) => writeSkill(home, "quick-setup", "permissions:\n  commands: [git]\n"));
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    await send(page, "/quick-setup set up the repository please, and tell me what you will do first");
    const hold = page.locator(".hold", { hasText: "quick-setup" });
    await hold.waitFor();
    assert.match(await hold.innerText(), /Held to quick-setup's list/);
    // While the answer is being written, Stop holding waits.
    await page.locator(".reply.streaming").first().waitFor({ timeout: 10000 });
    assert.equal(await hold.getByRole("button", { name: "Stop holding" }).isDisabled(), true);
    await idle(page);
    // Its name opens the list.
    await hold.getByRole("button", { name: "quick-setup" }).click();
    assert.match(await hold.locator(".hold-list").innerText(), /Commands: git/);
    await shot(page, "06-held");
    // Stop holding asks once.
    await hold.getByRole("button", { name: "Stop holding" }).click();
    const confirm = hold.locator(".confirm");
    await confirm.waitFor();
    assert.match(await confirm.innerText(), /instructions are still in this chat/);
    await confirm.getByRole("button", { name: "Stop holding" }).click();
    await page.locator(".line.hold-ended", { hasText: "You stopped holding this chat to quick-setup's list." }).waitFor();
    assert.equal(await page.locator(".hold").count(), 0);
    await shot(page, "07-hold-stopped");
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    conch.stop();
  }
});
