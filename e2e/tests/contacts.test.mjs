// Settings → Contacts: the owner keeps who they send to; saved tidy, kept
// across a reload, and what the page says is what the server kept.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, shot, signIn, startConch } from "../lib/conch.mjs";

test("contacts are set on the Settings page and kept", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await page.goto(`${conch.url}/settings`);
    const box = page.getByRole("textbox", { name: "Contacts, one per line" });
    await box.waitFor();
    await page.waitForFunction(() => !document.querySelector("textarea[aria-label^=Contacts]")?.disabled);
    await box.fill(" bob@example.com \nZoë Martin\n\nBOB@example.com\n#team");
    await page.getByRole("button", { name: "Save contacts" }).click();
    await page.getByRole("status").filter({ hasText: "Saved: 3 contacts." }).waitFor();
    await shot(page, "64-contacts");
    await page.reload();
    await page.waitForFunction(() => document.querySelector("textarea[aria-label^=Contacts]")?.value.includes("#team"));
    assert.equal(await box.inputValue(), "bob@example.com\nZoë Martin\n#team");
    const kept = await (await page.request.get(`${conch.url}/api/settings/contacts`)).json();
    assert.deepEqual(kept.contacts, ["bob@example.com", "Zoë Martin", "#team"]);
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    conch.stop();
  }
});
