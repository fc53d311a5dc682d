import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { browser, PASSWORD, shot, signIn, startConch } from "../lib/conch.mjs";

const KEY = "sk-proj-e2e-passwords-5c3a91";

test("Repair everything, Passwords and Backups from Settings, no key ever on the page", async () => {
  const conch = await startConch((home) => {
    writeFileSync(
      join(home, "settings.json"),
      JSON.stringify({ providers: [{ name: "local", kind: "openai", model: "m", baseUrl: "http://127.0.0.1:9/v1" }] }),
    );
    writeFileSync(join(home, "secrets.json"), JSON.stringify({ providers: { local: { key: KEY } } }));
    const chat = join(home, "chats", "torn0000torn0000");
    mkdirSync(chat, { recursive: true });
    writeFileSync(
      join(chat, "log.jsonl"),
      '{"seq":1,"id":"e1","at":"2026-11-28T09:00:00.000Z","type":"message","from":"owner","text":"héllo 日本"}\n{"seq":2,"id":"e2","at":"2026-11-28T09:00:01.000Z","ty',
    );
  });
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);

    // Settings → Security → Repair everything: one press, said in words;
    // a second press finds nothing.
    await page.goto(conch.url + "/settings/security");
    await page.getByRole("button", { name: "Repair everything" }).click();
    await page.locator('[data-repair="torn-logs"]', { hasText: "the end of its log was cut off" }).waitFor();
    await shot(page, "27-repair-everything");
    assert.ok(existsSync(join(conch.home, "chats", "torn0000torn0000", "log.jsonl.torn")));
    await page.getByRole("button", { name: "Repair everything" }).click();
    await page.locator(".repair li", { hasText: "Nothing needed repair." }).waitFor();

    // Settings → Passwords: the provider key by name and fingerprint only.
    await page.goto(conch.url + "/settings/passwords");
    const provider = page.locator('section[data-kind="provider"] li', { hasText: "local" });
    await provider.locator("code", { hasText: "SHA256:" }).waitFor();
    await page.locator('section[data-kind="deviceKey"]').waitFor();
    await shot(page, "28-passwords");
    assert.ok(!(await page.content()).includes(KEY), "the key's value is never on the page");

    // Settings → Backups: one without keys, listed.
    await page.goto(conch.url + "/settings/backups");
    await page.getByRole("button", { name: "Back up, without keys" }).click();
    await page.getByRole("status").filter({ hasText: "holds no keys" }).waitFor();
    await page.locator(".backups li", { hasText: "without keys" }).waitFor();
    // With a passphrase it carries the keys, after the password again.
    await page.getByLabel("Passphrase (optional)").fill("a passphrase for e2e ✓");
    await page.getByLabel("Your password").first().fill(PASSWORD);
    await page.getByRole("button", { name: "Back up, with my keys" }).click();
    await page.getByRole("status").filter({ hasText: "carries your keys" }).waitFor();
    await page.locator(".backups li", { hasText: "with your keys" }).waitFor();
    await shot(page, "29-backups");
    const made = readdirSync(join(conch.home, "backups"));
    assert.equal(made.length, 2, made.join(", "));
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    conch.stop();
  }
});
