// Models you can pick: Settings → Models adds (OpenAI-compatible or
// Anthropic), tests and removes providers against model servers on
// 127.0.0.1; a key is entered once and never shown again; the chat shows
// its model, and the picker changes it for the next turn.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { browser, idle, newChat, send, shot, signIn, startConch } from "../lib/conch.mjs";
import { modelServer } from "../lib/model.mjs";

const KEY = "sk-e2e-ünïcödé-5f3c9a1d7e2b";

test("Settings → Models: add, test, pick and remove; the key is never shown again", async () => {
  const openai = await modelServer([{ text: "Hello from the test." }]);
  const anthropic = await modelServer([{ status: 401, message: "invalid x-api-key" }]);
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await page.goto(`${conch.url}/settings`);
    await page.getByRole("link", { name: "Add, test and remove model providers" }).click();
    await page.getByRole("heading", { name: "Models" }).waitFor();
    await page.getByText("No providers yet").waitFor();

    // An OpenAI-compatible server with a key.
    await page.getByLabel("Name").fill("local");
    await page.getByLabel("Base URL").fill(openai.openai);
    await page.getByLabel("Model", { exact: true }).fill("scripted-gpt");
    const key = page.getByLabel("Key");
    assert.equal(await key.getAttribute("type"), "password");
    await key.fill(KEY);
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.getByText("Its key is sealed on this computer and won't be shown again.").waitFor();
    assert.equal(await key.inputValue(), "", "the box is emptied");
    const row = page.locator(".provider[data-provider=local]");
    await row.waitFor();
    assert.match(await row.innerText(), /OpenAI-compatible · scripted-gpt · .* · key sealed on this computer/);
    // Nowhere again: not on the page, not from the API, not in settings.json.
    assert.ok(!(await page.evaluate(() => document.body.innerText)).includes("5f3c9a1d7e2b"));
    const listed = await page.evaluate(async () => (await fetch("/api/providers")).text());
    assert.ok(!listed.includes("5f3c9a1d7e2b"), listed);
    assert.ok(!readFileSync(join(conch.home, "settings.json"), "utf8").includes("5f3c9a1d7e2b"));

    // Test: one short request; what came back, in words.
    await row.getByRole("button", { name: "Test" }).click();
    await row.locator(".tested.ok", { hasText: "It answered: “Hello from the test.”" }).waitFor();
    // (Node reads header bytes as Latin-1; Conch sent the key's UTF-8.)
    assert.equal(Buffer.from(openai.seen[0].headers.authorization, "latin1").toString("utf8"), `Bearer ${KEY}`);

    // Anthropic, whose server refuses the key: the error in words.
    await page.getByLabel("Anthropic").check();
    await page.getByLabel("Name").fill("claude");
    await page.getByLabel("Base URL").fill(anthropic.anthropic);
    await page.getByLabel("Model", { exact: true }).fill("claude-scripted");
    await page.getByLabel("Key").fill("sk-ant-wrong");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    const claude = page.locator(".provider[data-provider=claude]");
    await claude.waitFor();
    await claude.getByRole("button", { name: "Test" }).click();
    await claude.locator(".tested.error", { hasText: "It didn't work:" }).waitFor();
    assert.match(await claude.locator(".tested").innerText(), /refused the key \(HTTP 401\)/);
    assert.equal(anthropic.seen[0].headers["x-api-key"], "sk-ant-wrong");
    // Bad input: a sentence, nothing added.
    await page.getByLabel("Name").fill("has space");
    await page.getByLabel("Model", { exact: true }).fill("m");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "letters, digits, dots, dashes or underscores" }).waitFor();
    await shot(page, "47-models");

    // The chat shows its model, and the picker changes it for the next turn.
    await newChat(page);
    const picker = page.getByLabel("Next turn runs on");
    assert.equal(await picker.inputValue(), "local");
    assert.match(await picker.locator("option:checked").innerText(), /scripted-gpt/);
    openai.push({ text: "From the OpenAI-compatible one." });
    await send(page, "which model?");
    await page.locator(".reply", { hasText: "From the OpenAI-compatible one." }).waitFor();
    await idle(page);
    anthropic.push({ text: "From Anthropic." });
    await picker.selectOption("claude");
    await page.waitForFunction(() => document.querySelector("select[aria-label='Next turn runs on']")?.value === "claude");
    const before = anthropic.seen.length;
    // The key was wrong: the provider is added again with a right one.
    await page.evaluate(async (baseUrl) => {
      await fetch("/api/providers", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "claude", kind: "anthropic", baseUrl, model: "claude-scripted", key: "sk-ant-right" }),
      });
    }, anthropic.anthropic);
    await send(page, "and now?");
    await page.locator(".reply", { hasText: "From Anthropic." }).waitFor();
    await idle(page);
    assert.equal(anthropic.seen.length, before + 1, "the next turn went to the picked provider");
    assert.equal(anthropic.seen.at(-1).headers["x-api-key"], "sk-ant-right");
    const started = await page.evaluate(async () => {
      const id = location.pathname.split("/").pop();
      const events = await (await fetch(`/api/chats/${id}/events`)).json();
      return events.filter((e) => e.type === "turn.started").map((e) => e.model);
    });
    assert.deepEqual(started, ["scripted-gpt", "claude-scripted"]);

    // Remove asks once, with Keep it focused: Esc keeps it. Then removed,
    // the chat falls back to the default.
    await page.goto(`${conch.url}/settings/models`);
    const gone = page.locator(".provider[data-provider=claude]");
    await gone.getByRole("button", { name: "Remove" }).click();
    await page.waitForFunction(() => document.activeElement?.textContent === "Keep it");
    await page.keyboard.press("Escape");
    await gone.getByRole("alertdialog").waitFor({ state: "detached" });
    await gone.getByRole("button", { name: "Remove" }).click();
    await gone.getByRole("alertdialog").getByRole("button", { name: "Remove" }).click();
    await gone.waitFor({ state: "detached" });
    // The one refusal the page saw is the bad name, on purpose.
    assert.deepEqual(b.appErrors().filter((e) => !/status of 400/.test(e)), []);
    assert.equal(b.appErrors().length, 1);
  } finally {
    await b.close();
    conch.stop();
    openai.close();
    anthropic.close();
  }
});
