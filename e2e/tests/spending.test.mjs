// Spending caps from the page: Settings → Models says a provider's price
// is unknown, takes its prices and a chat's cap in euros; a reply shows
// what it cost; the next request, which would pass the cap, isn't sent
// and the chat says which cap and what to do; Activity shows today's
// spending. Against a model server on 127.0.0.1, with axe.

import { test } from "node:test";
import assert from "node:assert/strict";
import { axe } from "../lib/axe.mjs";
import { browser, cli, idle, newChat, send, signIn, startConch } from "../lib/conch.mjs";
import { modelServer } from "../lib/model.mjs";

test("a chat's cap stops the request that would pass it, and the page says what was spent", async () => {
  const model = await modelServer([{ text: "Première réponse, un peu longue pour compter." }, { text: "Never sent." }]);
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    const added = cli(conch.home, ["providers", "add", "local", "--kind", "openai", "--base-url", model.openai, "--model", "scripted-gpt"]);
    assert.equal(added.status, 0, added.err);
    await signIn(page, conch.url);
    await page.goto(`${conch.url}/settings/models`);
    const section = page.locator("section.spending");
    await section.getByText("Its price isn't known: under a cap it isn't sent to.").waitFor();
    for (const scheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme: scheme });
      assert.deepEqual(await axe(page), [], `axe, ${scheme}`);
    }
    // 1,000 a million tokens written: a request that may write 4,096 is
    // estimated at 4.096; the first answer writes a few tokens.
    await section.getByLabel("Sent, per million tokens").fill("0");
    await section.getByLabel("Written, per million tokens").fill("1000");
    await section.getByRole("button", { name: "Save prices" }).click();
    await section.getByLabel("Currency").fill("EUR");
    await section.getByLabel("A chat").fill("4.1");
    await section.getByRole("button", { name: "Save caps" }).click();
    await section.getByText("Saved. The caps hold from the next request.").waitFor();
    await section.getByText(/EUR 0\.00 in, EUR 1000\.00 out per million tokens/).waitFor();

    await newChat(page);
    await send(page, "Bonjour");
    await idle(page);
    const cost = page.locator(".reply .cost");
    await cost.waitFor();
    assert.match(await cost.innerText(), /^This answer: EUR 0\.0\d+ · this chat: EUR 0\.0\d+$/);
    await send(page, "Encore");
    await page.locator(".line.turn-error", { hasText: "The next request would pass this chat's cap (EUR 4.10;" }).waitFor();
    assert.equal(model.seen.length, 1, "the second request wasn't sent");

    await page.goto(`${conch.url}/activity`);
    await page.locator(".spent-today", { hasText: /Spent on models today: EUR 0\.0\d+\./ }).waitFor();
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    conch.stop();
    model.close();
  }
});
