// An "always" is a standing grant: it shows above the message box with an
// Undo, the mode's sentence stays true, the `a` key takes the narrowest
// "always" the card offers, and after Undo the next command asks again.
// At desktop and phone sizes.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, send, shot, signIn, startConch } from "../lib/conch.mjs";
import { addProvider, modelServer } from "../lib/model.mjs";

for (const [name, viewport] of [
  ["desktop", { width: 1280, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`${name}: a grant shows above the message box, Undo takes it back, and the next command asks again`, async () => {
    const conch = await startConch();
    const b = await browser(viewport);
    try {
      const { page } = b;
      await signIn(page, conch.url);
      await newChat(page);
      const card = page.locator(".question.pending");
      const says = page.locator("#mode-says");
      assert.doesNotMatch(await says.innerText(), /except/);

      await send(page, "run `echo eins`");
      await card.waitFor();
      // `a` takes the narrowest "always" on the card: echo, not any command.
      await page.keyboard.press("Escape");
      await page.keyboard.press("a");
      await idle(page);
      const grants = page.getByRole("list", { name: "Allowed in this chat" });
      await grants.waitFor();
      assert.deepEqual(await grants.locator("li span").allInnerTexts(), ["echo … runs without asking in this chat."]);
      assert.match(await says.innerText(), /except what you allowed above\.$/);
      await shot(page, `61-grant-shown-${name}`);

      // Covered: echo runs with no question.
      const asked = await page.locator(".question").count();
      await send(page, "run `echo zwei`");
      await idle(page);
      assert.equal(await page.locator(".question").count(), asked, "no new question");

      // Undo: gone, the sentence is the mode's own again, and echo asks.
      await grants.getByRole("button", { name: "Undo: echo … runs without asking in this chat." }).click();
      await grants.waitFor({ state: "detached" });
      assert.doesNotMatch(await says.innerText(), /except/);
      await send(page, "run `echo drei`");
      await card.waitFor();
      assert.match(await card.innerText(), /echo drei/);
      await page.keyboard.press("Escape");
      await page.keyboard.press("d");
      await idle(page);
      assert.deepEqual(b.appErrors(), []);
    } finally {
      await b.close();
      conch.stop();
    }
  });
}

test("a turn cut off by Stop says Stopped, with Retry", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    await page.getByLabel("Mode").selectOption("full");
    await send(page, "run `sleep 30`");
    await page.locator(".tool", { hasText: "sleep 30" }).waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    const stopped = page.locator(".line.turn-stopped");
    await stopped.waitFor();
    assert.match(await stopped.innerText(), /^Stopped\./);
    await stopped.getByRole("button", { name: "Retry" }).waitFor();
    assert.equal(await page.locator(".line.turn-error").count(), 0, "a stop isn't an error");
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("between Send and the first word the chat says it's thinking, with the seconds after 3", async () => {
  const conch = await startConch();
  const b = await browser();
  const model = await modelServer();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await addProvider(page, { name: "local", kind: "openai", baseUrl: model.openai, model: "scripted-1" });
    await newChat(page);
    model.push({ text: "Da bin ich.", wait: 4500 });
    await send(page, "hallo");
    const working = page.locator(".working");
    await working.waitFor();
    assert.equal(await working.innerText(), "Thinking…");
    await page.waitForFunction(() => /^Thinking… [3-9] s$/.test(document.querySelector(".working")?.textContent ?? ""));
    await shot(page, "62-thinking");
    await page.locator(".reply", { hasText: "Da bin ich." }).waitFor();
    await working.waitFor({ state: "detached" });
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    model.close();
    conch.stop();
  }
});
