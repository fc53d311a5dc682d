import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, pages, send, shot, signIn, startConch } from "../lib/conch.mjs";

test("Conch's browser: a page opened and a screenshot taken show in their cards and in the Browser panel", async () => {
  const site = await pages({
    "/news": "<!doctype html><title>Nachrichten</title><main id=m></main><script>document.getElementById('m').innerHTML = '<h1>Heute in Zürich</h1><p>Ein Bericht für Zoë.</p>';</script>",
  });
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    // The page is drawn by its script: the browser reads what it drew.
    await send(page, `Open ${site.base}/news in the browser`);
    await idle(page);
    const opened = page.locator(".tool", { hasText: "Browser · open" });
    await opened.waitFor();
    assert.match(await opened.locator("summary").innerText(), /127\.0\.0\.1/);
    // Reading on is free; the screenshot is in its card.
    await send(page, "Take a screenshot");
    await idle(page);
    const card = page.locator(".tool", { hasText: "Browser · screenshot" });
    await card.waitFor();
    await card.locator("summary").click();
    const img = card.locator("img.browser-shot");
    await img.waitFor();
    await page.waitForFunction((el) => el.complete && el.naturalWidth > 100, await img.elementHandle());
    // The Browser panel, from the chat's actions: the page and the picture.
    await page.getByRole("button", { name: "Browser", exact: true }).click();
    const panel = page.getByRole("complementary", { name: "Browser" });
    await panel.waitFor();
    assert.match(await panel.innerText(), /Nachrichten/);
    assert.match(await panel.innerText(), /\/news/);
    const shown = panel.locator("img.browser-shot");
    await page.waitForFunction((el) => el.complete && el.naturalWidth > 100, await shown.elementHandle());
    await shot(page, "browser-panel");
    await panel.getByRole("button", { name: "Close the Browser panel" }).click();
    await panel.waitFor({ state: "detached" });
    assert.deepEqual(b.errors, []);
  } finally {
    site.close();
    await b.close();
    await conch.stop();
  }
});
