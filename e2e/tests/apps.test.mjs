// Settings → Connections: a real MCP server from npm (server-everything), added
// in a terminal, shown with whether it is connected and each tool with
// whether it reads or writes; a tool's choice made on the page reaches
// apps.json, and a choice toward looser than the server says is refused in
// words.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { browser, root, shot, signIn, startConch } from "../lib/conch.mjs";

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
