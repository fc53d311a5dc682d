// Layout: the newest message and a waiting card are never under the
// composer (bounding boxes, at 1280×800 and 390×844, while following, after
// reopening and after a reload); the phone's top bar; long addresses wrap;
// the composer takes no more than it needs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, send, shot, signIn, startConch } from "../lib/conch.mjs";

/** Every answer button of the waiting card, and the newest row, lie fully
 *  above the composer and inside the window. */
async function nothingUnderTheComposer(page, what) {
  const dock = await page.locator(".dock").boundingBox();
  const view = page.viewportSize();
  assert.ok(dock && dock.y + dock.height <= view.height + 1, `${what}: the composer is in the window`);
  const buttons = page.locator(".question.pending .answers button");
  const n = await buttons.count();
  for (let i = 0; i < n; i++) {
    const box = await buttons.nth(i).boundingBox();
    const name = await buttons.nth(i).innerText();
    assert.ok(box, `${what}: "${name}" is drawn`);
    assert.ok(box.y + box.height <= dock.y + 0.5, `${what}: "${name}" (bottom ${box.y + box.height}) is under the composer (top ${dock.y})`);
    assert.ok(box.y >= 0, `${what}: "${name}" is above the window`);
  }
  const last = await page.locator(".transcript > li").last().boundingBox();
  assert.ok(last.y + last.height <= dock.y + 0.5, `${what}: the newest row (bottom ${last.y + last.height}) is under the composer (top ${dock.y})`);
  return n;
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  const phone = viewport.width < 720;
  test(`at ${viewport.width}×${viewport.height} the newest message and a waiting card are never under the composer`, async () => {
    const conch = await startConch();
    const b = await browser(viewport);
    try {
      const { page } = b;
      await signIn(page, conch.url);
      await page.getByRole("button", { name: "New chat" }).first().click();
      await page.getByLabel("Message").waitFor();
      // A long chat: more than a window of it.
      for (let i = 0; i < 8; i++) {
        await send(page, `help ${i} — a message long enough to wrap once or twice on a phone, with ünïcödé and 日本語`);
        await idle(page);
        await nothingUnderTheComposer(page, `following, after message ${i}`);
      }
      await send(page, "run `echo the card`");
      await page.locator(".question.pending").waitFor();
      await page.waitForTimeout(300);
      assert.equal(await nothingUnderTheComposer(page, "a card arrives"), 4, "Once, two Always allow, Deny");
      await shot(page, phone ? "40-phone-card-above-composer" : "40-card-above-composer");

      // Reloading, and reopening from another page, the card is in view.
      await page.reload();
      await page.locator(".question.pending").waitFor();
      await page.waitForTimeout(300);
      await nothingUnderTheComposer(page, "after a reload");
      const chat = page.url();
      await page.goto(`${conch.url}/activity`);
      await page.locator(".activity-row").first().waitFor();
      await page.goto(chat);
      await page.locator(".question.pending").waitFor();
      await page.waitForTimeout(300);
      await nothingUnderTheComposer(page, "reopened");

      // Answered: the output it allowed shows below the card, in view.
      await page.locator(".question.pending").getByRole("button", { name: "Once" }).click();
      await idle(page);
      await page.locator(".tool .output", { hasText: "the card" }).waitFor();
      const card = await page.locator(".question.done").last().boundingBox();
      const output = await page.locator(".tool", { hasText: "echo the card" }).last().boundingBox();
      assert.ok(card.y < output.y, "the answered card stays above the output it allowed");
      await nothingUnderTheComposer(page, "after the answer");
      assert.deepEqual(b.appErrors(), []);
    } finally {
      await b.close();
      conch.stop();
    }
  });
}

test("on a phone: a top bar with ☰, the chat's title and search; long addresses wrap; the composer takes what it needs", async () => {
  const conch = await startConch();
  const b = await browser({ width: 390, height: 844 });
  try {
    const { page } = b;
    await signIn(page, conch.url);
    // The helper waits for the chat the first screen makes by itself: a
    // click meanwhile raced it on a slow machine (the message never showed).
    await newChat(page);
    // Words only (the mock echoes them): nothing is fetched from outside.
    const long = `the address is https://files.example/${"a-very-long-path-segment/".repeat(8)}report.pdf?token=${"x".repeat(80)}`;
    await send(page, long);
    await idle(page);
    const head = page.locator(".chat-head");
    const menu = head.getByRole("button", { name: "Chats and pages" });
    const search = head.getByRole("button", { name: "Find" });
    const title = head.locator(".chat-title");
    for (const [what, l] of [["☰", menu], ["search", search], ["title", title]]) {
      const box = await l.boundingBox();
      assert.ok(box && box.y < 60 && box.x >= 0 && box.x + box.width <= 390, `${what} is in the top bar`);
    }
    assert.match(await title.innerText(), /the address is https:\/\/files\.example/);
    // The chat's own actions fold behind ⋯, so the name has the room.
    assert.ok((await title.boundingBox()).width > 180, "the title has room");
    assert.equal(await head.getByRole("button", { name: "Archive" }).count(), 0);
    await head.getByRole("button", { name: "More for this chat" }).click();
    await head.getByRole("button", { name: "Archive" }).waitFor();
    await head.getByRole("button", { name: "More for this chat" }).click();
    // Nothing is wider than the window: the address wraps.
    const wide = await page.evaluate(() => {
      const s = document.querySelector(".chat-scroll");
      return { scroll: s.scrollWidth, client: s.clientWidth, doc: document.documentElement.scrollWidth };
    });
    assert.ok(wide.scroll <= wide.client + 1 && wide.doc <= 391, `no sideways scroll: ${JSON.stringify(wide)}`);
    // Search opens the palette on touch; ☰ the sidebar.
    await search.click();
    await page.getByLabel("Find chats, skills and commands").waitFor();
    await page.keyboard.press("Escape");
    await menu.click();
    await page.locator(".sidebar").getByRole("button", { name: "New chat" }).waitFor();
    await page.locator(".sidebar a", { hasText: "the address is" }).click();
    // The composer: one line when empty, it grows with what is typed and
    // shrinks back.
    const box = page.getByLabel("Message");
    const empty = (await box.boundingBox()).height;
    await box.fill("one\ntwo\nthree\nfour");
    const four = (await box.boundingBox()).height;
    await box.fill("");
    // The box is sized as the input happens; a busy machine may still be
    // painting, so read it once the page has drawn a frame.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const again = (await box.boundingBox()).height;
    assert.ok(empty < 48, `an empty box is one line (${empty} px)`);
    assert.ok(four > empty * 2, `it grows (${empty} → ${four} px)`);
    assert.equal(again, empty, "and shrinks back");
    const dock = await page.locator(".dock").boundingBox();
    assert.ok(dock.height < 844 * 0.25, `the composer takes ${dock.height} px of 844`);
    await shot(page, "41-phone-top-bar");
    // Other pages have the top bar too.
    await page.goto(`${conch.url}/settings`);
    const top = page.locator(".topbar");
    await top.waitFor();
    assert.equal(await top.locator(".top-title").innerText(), "Settings");
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("on a phone: every page's top bar names the page", async () => {
  const conch = await startConch();
  const b = await browser({ width: 390, height: 844 });
  try {
    const { page } = b;
    await signIn(page, conch.url);
    for (const [path, name] of [
      ["/activity", "Activity"],
      ["/skills", "Skills"],
      ["/settings", "Settings"],
      ["/settings/security", "Security"],
      ["/settings/models", "Models"],
      ["/settings/connections", "Connections"],
      ["/settings/chat-apps", "Chat apps"],
      ["/settings/passwords", "Passwords"],
      ["/settings/backups", "Backups"],
      ["/settings/trash", "Trash"],
      ["/memories", "Memories"],
      ["/routines", "Routines"],
    ]) {
      await page.goto(conch.url + path);
      await page.locator("main h1").first().waitFor();
      assert.equal(await page.locator(".topbar .top-title").innerText(), name, path);
      assert.equal(await page.title(), `${name} · Conch`, path);
    }
    assert.deepEqual(b.appErrors(), []);
  } finally {
    await b.close();
    conch.stop();
  }
});
