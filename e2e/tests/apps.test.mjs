// Settings → Connections: a real MCP server from npm (server-everything), added
// in a terminal or from the page, shown with whether it is connected and each tool with
// whether it reads or writes; a tool's choice made on the page reaches
// apps.json, and a choice toward looser than the server says is refused in
// words.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { axe } from "../lib/axe.mjs";
import { browser, PASSWORD, root, shot, signIn, startConch } from "../lib/conch.mjs";

const exe = process.env.CONCH_BIN ?? join(root, "target", "debug", "conch");
const everything = join(root, "crates/apps/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");

test("Settings → Connections: a connection's tools with reads or writes, and a choice made on the page", async () => {
  const conch = await startConch((home) => {
    const out = spawnSync(exe, ["--home", home, "apps", "add", "everything", "--", "node", everything, "stdio"], { encoding: "utf8" });
    assert.equal(out.status, 0, out.stdout + out.stderr);
  });
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await page.goto(`${conch.url}/settings`);
    await page.getByRole("link", { name: "Your connections (MCP servers) and each tool's choice" }).click();
    await page.getByRole("heading", { name: "Connections", exact: true }).waitFor();
    const app = page.locator(".app[data-app=everything]");
    await app.getByText("connected").waitFor({ timeout: 20000 });
    const echo = app.locator("li[data-tool=echo]");
    await echo.waitFor();
    assert.match(await echo.innerText(), /echo/);
    const choice = page.getByLabel("Choice for everything.echo");
    assert.equal(await choice.inputValue(), "follow");
    await choice.selectOption("ask");
    await page.waitForFunction(() => document.querySelector('select[aria-label="Choice for everything.echo"]')?.value === "ask");
    // The file is written as the answer comes back: wait for it.
    const saved = async (want) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const now = JSON.parse(readFileSync(join(conch.home, "apps.json"), "utf8")).servers.everything.tools.echo?.choice;
        if (now === want || Date.now() > deadline) return now;
        await page.waitForTimeout(50);
      }
    };
    assert.equal(await saved("ask"), "ask");
    await choice.selectOption("off");
    await page.waitForFunction(() => document.querySelector('select[aria-label="Choice for everything.echo"]')?.value === "off");
    assert.equal(await saved("off"), "off");
    await shot(page, "60-apps");
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    await conch.stop();
  }
});

// Added from the page: the program, its arguments and a secret in a sealed
// field, with the password again; Conch starts it and lists its tools. The
// secret never comes back: not in the page, not from the API, and not in
// any file as typed. At desktop and phone sizes.
for (const [name, viewport] of [
  ["desktop", { width: 1280, height: 860 }],
  ["phone", { width: 390, height: 844 }],
]) {
  test(`${name}: a connection added from the page against server-everything, its tools listed, its secret sealed`, async () => {
    const conch = await startConch();
    const b = await browser(viewport);
    const secret = "s3cret-Ünïcode-value-7f3a";
    try {
      const { page } = b;
      await signIn(page, conch.url);
      await page.goto(`${conch.url}/settings/connections`);
      const form = page.locator(".add-connection");
      await form.getByLabel("Name", { exact: true }).fill("everything");
      await form.getByLabel("Program", { exact: true }).fill("node");
      await form.getByLabel("Arguments, one a line").fill(`${everything}\nstdio`);
      await form.getByRole("button", { name: "Add a secret" }).click();
      await form.getByLabel("Secret 1: name").fill("EVERYTHING_TOKEN");
      await form.getByLabel("Secret 1: value").fill(secret);
      assert.equal(await form.getByLabel("Secret 1: value").getAttribute("type"), "password");

      // A wrong password adds nothing.
      await form.getByLabel(/^Your password/).fill("not the password");
      await form.getByRole("button", { name: "Add and start it" }).click();
      await form.locator(".error").waitFor();
      assert.equal((await (await page.request.get(`${conch.url}/api/apps`)).json()).apps.length, 0);

      await form.getByLabel(/^Your password/).fill(PASSWORD);
      await form.getByRole("button", { name: "Add and start it" }).click();
      const said = form.locator(".said");
      await said.waitFor({ timeout: 30000 });
      assert.match(await said.innerText(), /^Added everything: connected, with \d+ tools listed below\./);
      const app = page.locator(".app[data-app=everything]");
      await app.locator("li[data-tool=echo]").waitFor();
      await shot(page, `67-connection-added-${name}`);
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        assert.deepEqual(await axe(page), [], `axe, ${scheme}`);
      }

      // Sealed: the page, the API and the files don't give it back.
      assert.equal(await form.getByLabel("Secret 1: value").count(), 0, "the field is gone");
      assert.ok(!(await page.content()).includes(secret));
      const api = await (await page.request.get(`${conch.url}/api/apps`)).text();
      assert.ok(!api.includes(secret), "the API gave the secret back");
      assert.match(api, /EVERYTHING_TOKEN/, "its name is shown");
      for (const file of readdirSync(conch.home, { recursive: true })) {
        const path = join(conch.home, String(file));
        if (!statSync(path).isFile()) continue;
        assert.ok(!readFileSync(path).includes(Buffer.from(secret)), `${file} holds the secret as typed`);
      }
      assert.deepEqual(b.appErrors().filter((e) => !/status of 401/.test(e)), []);
    } finally {
      await b.close();
      await conch.stop();
    }
  });
}
