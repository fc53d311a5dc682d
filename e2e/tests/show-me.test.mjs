// "Show me", in the app (ADR 0034 §2, §4, §5): the panel beside the chat,
// the six kinds drawn, tabs, versions and changes, sorting, a chart's
// table, pinned apps and Refresh, ⌘K, Activity's Made, the keyboard, the
// phone, dark mode; a page with a link. The real binary, Debian's
// Chromium, the mock engine's phrases. No console errors and no CSP
// violations on any of them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, send, shot, signIn, startConch, witness } from "../lib/conch.mjs";

const panel = (page) => page.locator("aside.panel");
const shownVersion = (page, n) => page.locator(`aside.panel[data-version="${n}"]`).waitFor();

async function clean(b) {
  assert.deepEqual(b.errors, [], "no console errors");
  assert.deepEqual(await b.csp(), [], "no CSP violations");
}

/** Every version text the page fetched, and how many times. */
function textFetches(b) {
  const counts = {};
  for (const r of b.requests) {
    if (/\/api\/artifacts\/[^/]+\/versions\/\d+$/.test(r.url)) counts[r.url] = (counts[r.url] ?? 0) + 1;
  }
  return counts;
}

test("each of the six kinds is drawn beside the chat; tabs, versions and changes; each version fetched once", async () => {
  const out = await witness();
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    const lazy = () => b.requests.map((r) => r.url).filter((u) => /\/assets\/(Chart|mermaid-frame|Panel)-/.test(u));
    assert.deepEqual(lazy(), [], "nothing of the panel loads before something is shown");

    // A chart: it opens beside the chat by itself.
    await send(page, "make me a chart");
    await idle(page);
    await shownVersion(page, 1);
    const bars = panel(page).locator(".chart rect.bar");
    assert.equal(await bars.count(), 5);
    assert.equal(await bars.first().locator("title").textContent(), "Visitors: Mon, 12");
    assert.equal(await panel(page).locator(".legend").count(), 0, "one series: no legend");
    assert.ok(lazy().some((u) => u.includes("/Chart-")), "the chart's code came when a chart was shown");
    assert.ok(!lazy().some((u) => u.includes("mermaid-frame")), "Mermaid didn't");
    // The same numbers one press away.
    await panel(page).getByRole("button", { name: "Show as a table" }).click();
    const numbers = panel(page).locator(".chart-table tbody tr");
    assert.equal(await numbers.count(), 5);
    assert.deepEqual(await numbers.first().locator("th, td").allInnerTexts(), ["Mon", "12"]);
    await shot(page, "20-chart-as-table");
    await panel(page).getByRole("button", { name: "Show the chart" }).click();
    await bars.first().waitFor();
    // Code: the chart's JSON one value per line.
    await panel(page).getByRole("tab", { name: "Code" }).click();
    const code = await panel(page).locator(".code").innerText();
    assert.match(code, /\n\s+12,\n\s+19,\n\s+7,/);
    await shot(page, "21-chart-code");

    // A new version opens in its place; Changes says what changed in
    // words and values, with the line diff folded below.
    await send(page, "make it bigger");
    await idle(page);
    await shownVersion(page, 2);
    assert.equal(await panel(page).locator(".version-picker option").count(), 2);
    await panel(page).getByRole("tab", { name: "Changes" }).click();
    await panel(page).locator(".chart-changes li").first().waitFor();
    assert.equal(await panel(page).locator(".changes-head").innerText(), "From version 1 to version 2:");
    assert.deepEqual(await panel(page).locator(".chart-changes li").allInnerTexts(), [
      "“Visitors” at “Mon”: 12 → 22.",
      "“Visitors” at “Tue”: 19 → 29.",
      "“Visitors” at “Wed”: 7 → 17.",
      "“Visitors” at “Thu”: 15 → 25.",
      "“Visitors” at “Fri”: 22 → 32.",
    ]);
    assert.equal(await panel(page).locator(".diff").isVisible(), false, "the spec's lines are folded");
    await panel(page).getByText("The chart's spec, line by line").click();
    assert.ok((await panel(page).locator(".diff .line.add").count()) > 0);
    assert.ok((await panel(page).locator(".diff .line.del").count()) > 0);
    await shot(page, "22-changes");
    // Back to version 1: it has nothing before it.
    await panel(page).locator(".version-picker select").selectOption("1");
    await shownVersion(page, 1);
    await panel(page).locator(".changes-none").waitFor();
    await panel(page).getByRole("tab", { name: "View" }).click();
    await bars.first().waitFor();
    assert.equal(await bars.first().locator("title").textContent(), "Visitors: Mon, 12");
    await panel(page).locator(".version-picker select").selectOption("2");
    await shownVersion(page, 2);
    assert.equal(await bars.first().locator("title").textContent(), "Visitors: Mon, 22");

    // A table: sorted by any column, numbers as numbers.
    await send(page, "make me a table");
    await idle(page);
    await panel(page).locator(".data-table").waitFor();
    const column = (c) => panel(page).locator(`.data-table tbody tr td:nth-child(${c})`).allInnerTexts();
    assert.deepEqual(await column(2), ["12", "3", "2"]);
    await panel(page).getByRole("button", { name: "qty" }).click();
    assert.deepEqual(await column(2), ["2", "3", "12"], "2 < 3 < 12, not '12' < '2'");
    assert.equal(await panel(page).locator("th[aria-sort=ascending]").innerText(), "qty ↑");
    await panel(page).getByRole("button", { name: "qty" }).click();
    assert.deepEqual(await column(2), ["12", "3", "2"]);
    await panel(page).getByRole("button", { name: "item" }).click();
    assert.deepEqual(await column(1), ["notebooks", "pens", "tape, clear"]);
    await shot(page, "23-table-sorted");

    // A document: Markdown that loads no pictures from any address.
    const pixel = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    await send(page, `make me this document:\n\`\`\`markdown\n# Trip plan ✈️\n\n![tracking](${out.base}/pixel.png?d=secret)\n\n![a dot](${pixel})\n\n- Ærøskøbing on day 1\n\`\`\``);
    await idle(page);
    await panel(page).locator(".document h1").waitFor();
    assert.equal(await panel(page).locator(".document h1").innerText(), "Trip plan ✈️");
    assert.equal(await panel(page).locator(".document img").count(), 1, "only the data: picture");
    assert.match(await panel(page).locator(".document img").getAttribute("src"), /^data:image\/png;base64,/);
    assert.equal(await panel(page).locator(".document .blocked-image").count(), 1);

    // A picture: an <img> with a data: URL.
    await send(page, "make me a picture");
    await idle(page);
    await panel(page).locator("img.picture").waitFor();
    assert.match(await panel(page).locator("img.picture").getAttribute("src"), /^data:image\/svg\+xml;charset=utf-8,%3Csvg/);

    // A diagram: Mermaid in its sealed frame, shown as an <img>.
    await send(page, "make me a diagram");
    await idle(page);
    const diagram = panel(page).locator("img.diagram");
    await diagram.waitFor({ timeout: 30000 });
    const svg = decodeURIComponent((await diagram.getAttribute("src")).replace(/^data:image\/svg\+xml;charset=utf-8,/, ""));
    assert.match(svg, /^<svg/);
    const words = svg.replace(/<style>[^]*?<\/style>/, "").replace(/<[^>]+>/g, " ");
    for (const w of ["Ask", "Read", "something?", "owner"]) assert.ok(words.includes(w), `the diagram says ${w}`);
    assert.doesNotMatch(svg, /<script|foreignObject|onerror|onload/i, "no script, no HTML labels");
    assert.ok(await diagram.evaluate((img) => img.complete && img.naturalWidth > 0), "the picture draws");
    const renderer = page.locator("iframe.diagram-renderer");
    assert.equal(await renderer.getAttribute("sandbox"), "allow-scripts");
    assert.equal(await renderer.getAttribute("src"), "/api/artifacts/mermaid-frame");
    assert.ok(lazy().some((u) => u.includes("mermaid-frame")), "Mermaid came when a diagram was shown");
    await shot(page, "24-diagram");

    // A page: sealed in its frame, its scripts running, its height told.
    await send(page, "make me a page");
    await idle(page);
    const iframe = panel(page).locator(".page-frame iframe");
    await iframe.waitFor();
    assert.equal(await iframe.getAttribute("sandbox"), "allow-scripts");
    assert.equal(await panel(page).getByRole("tab", { name: "Use" }).count(), 1);
    const frame = await (await iframe.elementHandle()).contentFrame();
    await frame.locator("#out", { hasText: "6.00" }).waitFor();
    await frame.locator("#tip").fill("20");
    await frame.locator("#out", { hasText: "8.00" }).waitFor();
    await page.waitForFunction(() => document.querySelector(".page-frame iframe")?.style.height.endsWith("px"));
    await shot(page, "25-page");

    // Going back to earlier ones draws them from what was fetched: each
    // version's text came once.
    for (const card of await page.locator(".artifact-card").all()) {
      await card.getByRole("button", { name: /^(Open|Shown)$/ }).click();
      await panel(page).getByRole("tab", { name: "Code" }).click();
      await panel(page).locator(".code").waitFor();
      await panel(page).getByRole("tab", { name: /^(View|Use)$/ }).click();
    }
    const fetched = textFetches(b);
    assert.ok(Object.keys(fetched).length >= 6, JSON.stringify(fetched));
    for (const [url, n] of Object.entries(fetched)) assert.equal(n, 1, `${url} fetched ${n} times`);
    assert.deepEqual(out.seen, [], "the document's picture from an address wasn't loaded");
    await clean(b);
  } finally {
    await b.close();
    conch.stop();
    out.close();
  }
});

test("pinned: under Pinned in the sidebar, /apps/:id from the cache, Refresh asks and is answered, ⌘K and Activity's Made", async () => {
  const site = await witness({ "/week": "<html><body><h1>This week</h1><p>Mon 30, Tue 31, Wed 12.</p></body></html>" });
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    const chatUrl = page.url();
    await send(page, `make me a chart of ${site.base}/week`);
    await idle(page);
    await shownVersion(page, 1);
    const id = await panel(page).getAttribute("data-artifact");
    await panel(page).getByRole("button", { name: "Pin", exact: true }).click();
    await panel(page).locator(".panel-said", { hasText: "Pinned: it's under Pinned in the sidebar." }).waitFor();
    const app = page.locator(".apps-list a", { hasText: "Weekly numbers" });
    await app.waitFor();
    const chatsBefore = await page.locator(".chat-list li a").count();

    // Its own page, straight from what this page already has.
    const before = textFetches(b);
    await app.click();
    await page.waitForURL(`${conch.url}/apps/${id}`);
    await page.locator(".app-page .chart rect.bar").first().waitFor();
    assert.deepEqual(textFetches(b), before, "no fetch: from the cache");
    await shot(page, "26-app");

    // Refresh: the Refresh chat reads the address, then asks before a read
    // that would send what it has.
    const reads = () => site.seen.filter((s) => s.what === "request").map((s) => s.url);
    await page.getByRole("button", { name: "Refresh", exact: true }).click();
    const card = page.locator(".app-page .question.pending");
    await card.waitFor({ timeout: 30000 });
    assert.match(await card.locator(".subject").innerText(), new RegExp(`^${site.base}/week\\?have=[0-9a-f]{16}$`));
    assert.deepEqual(reads(), ["/week"], "the read that sends waits for the owner");
    await shot(page, "27-refresh-asks");
    await card.getByRole("button", { name: "Once" }).click();
    await page.locator(".app-page .version-note.refreshed", { hasText: "Version 2 · refreshed" }).waitFor({ timeout: 30000 });
    assert.equal(reads().length, 2);
    assert.match(reads()[1], /^\/week\?have=/);
    await page.locator(".app-page .chart rect.bar").first().waitFor();
    assert.equal(await page.locator(".app-page .chart rect.bar").first().locator("title").textContent(), "Visitors: Mon, 15");
    // The Refresh chat is kept out of the chat list.
    await page.waitForTimeout(1200);
    assert.equal(await page.locator(".chat-list li a").count(), chatsBefore);

    // ⌘K: a pinned one opens on its page, anything else beside its chat.
    await page.goto(chatUrl);
    await send(page, "make me a table");
    await idle(page);
    await page.getByRole("link", { name: "Activity" }).click();
    // Activity is loaded when first shown: ⌘K once it has drawn.
    await page.getByRole("heading", { name: "Activity" }).waitFor();
    await page.keyboard.press("Control+k");
    await page.getByLabel("Find chats, skills and commands").fill("weekly");
    assert.match(await page.locator(".palette li.at").innerText(), /Weekly numbers\s+Chart, pinned/);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${conch.url}/apps/${id}`);
    // The app's page is loaded when first shown; ⌘K once it has drawn (a
    // press while it loads can land before the page listens).
    const find = page.getByLabel("Find chats, skills and commands");
    for (let tries = 1; ; tries++) {
      await page.keyboard.press("Control+k");
      try {
        await find.waitFor({ timeout: 3000 });
        break;
      } catch (e) {
        if (tries >= 3) throw e;
      }
    }
    await find.fill("supplies");
    await page.keyboard.press("Enter");
    await page.waitForURL(new RegExp(`${chatUrl}\\?artifact=`));
    await panel(page).locator(".data-table").waitFor();
    assert.equal(await panel(page).locator(".panel-title h2").innerText(), "Supplies");

    // Activity's Made filter.
    await page.getByRole("link", { name: "Activity" }).click();
    await page.getByRole("button", { name: "Made", exact: true }).click();
    await page.locator(".activity-row", { hasText: "Refreshed the chart" }).waitFor();
    // The list is the filtered one once no other row is left.
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll(".activity-row")];
      return rows.length >= 3 && rows.every((r) => r.classList.contains("kind-made"));
    });
    const made = await page.locator(".activity-row .says").allInnerTexts();
    assert.ok(made.length >= 3, made.join("\n"));
    for (const row of made) assert.match(row, /^(Made|Updated|Refreshed) the (chart|table|page|document|picture|diagram) "/);
    await shot(page, "28-activity-made");

    // Unpinned, it leaves Pinned.
    await page.locator(".apps-list a", { hasText: "Weekly numbers" }).click();
    await page.getByRole("button", { name: "Unpin" }).click();
    await page.locator(".apps-list").waitFor({ state: "detached" });
    await clean(b);
  } finally {
    await b.close();
    conch.stop();
    site.close();
  }
});

test("the panel from the keyboard, resized and remembered; Copy, Download, Full screen, Delete asked once; closed stays closed", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await b.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: conch.url });
    await signIn(page, conch.url);
    await newChat(page);
    await send(page, "make me a chart");
    await idle(page);
    await shownVersion(page, 1);

    // Every control is reached with Tab and shows where focus is.
    await panel(page).locator(".panel-edge").focus();
    const seen = [];
    for (let i = 0; i < 40; i++) {
      const at = await page.evaluate(() => {
        const el = document.activeElement;
        if (!el || !el.closest("aside.panel")) return null;
        const s = getComputedStyle(el);
        return {
          name: el.getAttribute("aria-label") || el.textContent.trim().slice(0, 30) || el.tagName,
          visible: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0,
        };
      });
      if (!at) break;
      seen.push(at);
      await page.keyboard.press("Tab");
    }
    const names = seen.map((s) => s.name);
    for (const want of ["Panel width: drag, or use the arrow keys", "Close the panel", "View", "Copy", "Download", "Pin", "Full screen", "Delete", "Show as a table"]) {
      assert.ok(names.some((n) => n.startsWith(want)), `${want} is in the tab order: ${names.join(" | ")}`);
    }
    for (const s of seen) assert.ok(s.visible, `${s.name} shows its focus`);
    // Tabs move with the arrow keys.
    await panel(page).getByRole("tab", { name: "View" }).focus();
    await page.keyboard.press("ArrowRight");
    assert.equal(await panel(page).getByRole("tab", { name: "Code" }).getAttribute("aria-selected"), "true");
    assert.ok(await panel(page).getByRole("tab", { name: "Code" }).evaluate((el) => el === document.activeElement));
    await page.keyboard.press("ArrowLeft");

    // Resize: the edge takes the arrow keys and a drag; the width stays.
    const width = () => panel(page).evaluate((el) => el.getBoundingClientRect().width);
    const w0 = await width();
    await panel(page).locator(".panel-edge").focus();
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    assert.equal(Math.round(await width()), Math.round(w0 + 48));
    const edge = await panel(page).locator(".panel-edge").boundingBox();
    await page.mouse.move(edge.x + 4, edge.y + 300);
    await page.mouse.down();
    await page.mouse.move(edge.x - 60, edge.y + 300, { steps: 5 });
    await page.mouse.up();
    const w1 = await width();
    assert.ok(Math.abs(w1 - (w0 + 48 + 64)) <= 2, `dragged to ${w1}`);
    await page.reload();
    await page.locator(".artifact-card").getByRole("button", { name: "Open" }).click();
    await shownVersion(page, 1);
    assert.ok(Math.abs((await width()) - w1) <= 1, "the width was remembered");

    // Copy, Download, Full screen.
    await panel(page).getByRole("button", { name: "Copy" }).click();
    await panel(page).locator(".panel-said", { hasText: "Copied version 1." }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(JSON.parse(copied).title, "Weekly numbers");
    const [download] = await Promise.all([page.waitForEvent("download"), panel(page).getByRole("link", { name: "Download" }).click()]);
    assert.equal(download.suggestedFilename(), "Weekly-numbers.json");
    await panel(page).getByRole("button", { name: "Full screen" }).click();
    await page.waitForFunction(() => document.fullscreenElement?.matches("aside.panel") || document.querySelector("aside.panel.full"));
    await shot(page, "29-full-screen");
    await panel(page).getByRole("button", { name: "Leave full screen" }).click();
    await page.waitForFunction(() => !document.fullscreenElement && !document.querySelector("aside.panel.full"));

    // Closed, it stays closed when something new is made; its card opens it.
    await panel(page).getByRole("button", { name: "Close the panel" }).click();
    await panel(page).waitFor({ state: "detached" });
    await send(page, "make it bigger");
    await idle(page);
    await page.waitForTimeout(500);
    assert.equal(await panel(page).count(), 0, "closed since: it didn't open by itself");
    await page.locator(".artifact-card", { hasText: "version 2" }).getByRole("button", { name: "Open" }).click();
    await shownVersion(page, 2);

    // Delete asks once.
    await panel(page).getByRole("button", { name: "Delete" }).click();
    const ask = panel(page).locator(".ask");
    assert.equal(await ask.locator(".ask-question").innerText(), 'Delete "Weekly numbers"?');
    // The safe answer takes the focus as the question is drawn (an effect,
    // a moment after it shows).
    await page.waitForFunction(() => document.activeElement?.textContent === "Keep it", null, { timeout: 2000 });
    await ask.getByRole("button", { name: "Keep it" }).click();
    assert.equal(await ask.count(), 0);
    const id = await panel(page).getAttribute("data-artifact");
    await panel(page).getByRole("button", { name: "Delete" }).click();
    await ask.getByRole("button", { name: "Delete" }).click();
    await panel(page).waitFor({ state: "detached" });
    assert.equal((await page.request.get(`${conch.url}/api/artifacts/${id}`)).status(), 404);
    await clean(b);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("a page with a link: scripts off until Run it anyway (asked once); a link asks with its full address and opens with noopener and noreferrer", async () => {
  const site = await witness({ "/guide?from=page": "<h1>The guide</h1>" });
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    const html = `<!doctype html><html><body><h1>Reading list</h1><p><a id="jump" href="#end">Jump to the end</a></p><div style="height:900px"></div><p id="end">Start with <a id="go" href="${site.base}/guide?from=page">the guide</a>.</p><script>document.getElementById("end").dataset.ran = "yes";</script></body></html>`;
    await send(page, `make me this page, called "Reading list":\n\`\`\`html\n${html}\n\`\`\``);
    await idle(page);
    const note = panel(page).locator(".frame-note");
    await note.waitFor();
    assert.match(await note.innerText(), /This page has a way out \(a link out \(<a> to http:\/\/127\.0\.0\.1:\d+\/guide\?from=page\)\), so it's shown with its scripts off\./);
    const iframe = panel(page).locator(".page-frame iframe");
    let frame = await (await iframe.elementHandle()).contentFrame();
    await frame.locator("#end").waitFor();
    assert.equal(await frame.locator("#end").getAttribute("data-ran"), null, "its script didn't run");
    await shot(page, "32-scripts-off");

    await panel(page).getByRole("button", { name: "Run it anyway" }).click();
    const ask = panel(page).locator(".ask");
    assert.equal(await ask.locator(".ask-question").innerText(), "Run this page's scripts?");
    assert.match(await ask.innerText(), /what this page shows and anything you type into it could be sent to another address/);
    await ask.getByRole("button", { name: "Run it", exact: true }).click();
    await page.waitForFunction(() => document.querySelector(".page-frame iframe")?.getAttribute("src")?.endsWith("?scripts=1"));
    frame = await (await iframe.elementHandle()).contentFrame();
    await frame.locator('#end[data-ran="yes"]').waitFor();
    // Asked once: away and back, it runs without asking again.
    await panel(page).getByRole("tab", { name: "Code" }).click();
    await panel(page).getByRole("tab", { name: "Use" }).click();
    await page.waitForFunction(() => document.querySelector(".page-frame iframe")?.getAttribute("src")?.endsWith("?scripts=1"));
    assert.equal(await panel(page).locator(".frame-note").count(), 0);
    assert.equal(await ask.count(), 0);
    frame = await (await iframe.elementHandle()).contentFrame();
    // A link inside the page stays inside: no second load, nothing asked.
    await frame.locator("#jump").click();
    await page.waitForTimeout(400);
    assert.equal(await panel(page).locator(".frame-stopped").count(), 0);
    assert.equal(await ask.count(), 0);

    // A link out asks, with the full address; yes opens it without an
    // opener or a referrer.
    await frame.locator("#go").click();
    await ask.waitFor();
    assert.equal(await ask.locator(".ask-question").innerText(), "Open 127.0.0.1?");
    assert.equal(await ask.locator(".address").innerText(), `${site.base}/guide?from=page`);
    await shot(page, "33-open-link");
    const [popup] = await Promise.all([b.context.waitForEvent("page"), ask.getByRole("button", { name: "Open it" }).click()]);
    await popup.waitForLoadState();
    assert.equal(popup.url(), `${site.base}/guide?from=page`);
    assert.equal(await popup.evaluate(() => window.opener), null);
    // (The new tab asks for its own favicon afterwards; that one is its own.)
    const asked = site.seen.filter((s) => s.what === "request" && s.url !== "/favicon.ico");
    assert.deepEqual(asked.map((s) => [s.url, s.referer]), [["/guide?from=page", null]]);
    await popup.close();
    await clean(b);
  } finally {
    await b.close();
    conch.stop();
    site.close();
  }
});

test("on a phone the panel slides over the chat with a way back; dark mode draws the dark colours", async () => {
  const conch = await startConch();
  const b = await browser({ width: 390, height: 844 });
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await page.getByRole("button", { name: "Chats and pages" }).click();
    await page.waitForTimeout(300);
    await page.locator(".sidebar").getByRole("button", { name: "New chat" }).click();
    await page.getByLabel("Message").waitFor();
    await send(page, "make me a chart");
    await idle(page);
    await shownVersion(page, 1);
    await page.waitForTimeout(300);
    const box = await panel(page).boundingBox();
    assert.deepEqual([box.x, box.width], [0, 390], "over the whole chat");
    const fill = () => panel(page).locator(".chart rect.bar").first().evaluate((el) => getComputedStyle(el).fill);
    assert.equal(await fill(), "rgb(18, 137, 224)");
    await shot(page, "34-phone-panel");
    await panel(page).getByRole("button", { name: "← Back to the chat" }).click();
    await panel(page).waitFor({ state: "detached" });
    await page.getByLabel("Message").waitFor();
    await page.locator(".artifact-card").getByRole("button", { name: "Open" }).click();
    await shownVersion(page, 1);
    await page.waitForTimeout(300);

    // Dark: the chart's colours are the dark set, the diagram is drawn dark.
    await page.emulateMedia({ colorScheme: "dark" });
    assert.equal(await fill(), "rgb(86, 180, 233)");
    await shot(page, "35-phone-dark-chart");
    await panel(page).getByRole("button", { name: "← Back to the chat" }).click();
    await send(page, "make me a diagram");
    await idle(page);
    // Closed since: the new diagram waits for its card.
    assert.equal(await panel(page).count(), 0);
    await page.locator(".artifact-card", { hasText: "How Conch asks" }).getByRole("button", { name: "Open" }).click();
    const diagram = panel(page).locator("img.diagram");
    await diagram.waitFor({ timeout: 30000 });
    const dark = decodeURIComponent(await diagram.getAttribute("src"));
    await page.emulateMedia({ colorScheme: "light" });
    await page.waitForFunction((before) => document.querySelector("img.diagram")?.getAttribute("src") !== before, await diagram.getAttribute("src"));
    const light = decodeURIComponent(await diagram.getAttribute("src"));
    assert.notEqual(dark, light, "drawn again for the light theme");
    await page.emulateMedia({ colorScheme: "dark" });
    await shot(page, "36-phone-dark-diagram");
    await clean(b);
  } finally {
    await b.close();
    conch.stop();
  }
});

test("a diagram can't turn Mermaid's safety off: no HTML labels, no handlers, no javascript: links", async () => {
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    const diagram = [
      '%%{init: {"securityLevel": "loose", "htmlLabels": true, "flowchart": {"htmlLabels": true}, "secure": []}}%%',
      "flowchart LR",
      '  A["<img src=x onerror=alert(1)>Start"] --> B["<b>bold</b> Ærø"]',
      '  click A "javascript:alert(2)"',
      '  click B href "https://evil.example/?d=1"',
    ].join("\n");
    await send(page, `make me this diagram, called "Tricks":\n\`\`\`mermaid\n${diagram}\n\`\`\``);
    await idle(page);
    const img = panel(page).locator("img.diagram");
    await img.waitFor({ timeout: 30000 });
    assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), "the picture draws: well-formed SVG");
    const svg = decodeURIComponent((await img.getAttribute("src")).replace(/^data:image\/svg\+xml;charset=utf-8,/, ""));
    // Read it where no CSP applies (a blank page of the same browser).
    const scratch = await b.context.newPage();
    const found = await scratch.evaluate((svg) => {
      const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
      const all = [...doc.querySelectorAll("*")];
      return {
        root: doc.documentElement.nodeName,
        html: all.filter((e) => ["foreignObject", "img", "b", "script", "iframe"].includes(e.localName)).map((e) => e.localName),
        handlers: all.flatMap((e) => [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name)),
        links: all.flatMap((e) => [...e.attributes].filter((a) => /href$/i.test(a.name) && !a.value.startsWith("#")).map((a) => a.value)),
        text: doc.documentElement.textContent,
      };
    }, svg);
    await scratch.close();
    assert.equal(found.root, "svg");
    assert.deepEqual(found.html, [], "no HTML in it");
    assert.deepEqual(found.handlers, []);
    assert.deepEqual(found.links, [], "no links out of it");
    assert.match(found.text, /Start/);
    assert.match(found.text, /Ærø/);
    // The label's handler was tried inside the renderer, and its CSP
    // refused it: the only errors are that frame's refusals; the app's own
    // page logged none and saw no violation.
    const errors = b.logged.filter((l) => l.type === "error");
    for (const e of errors) {
      assert.match(e.url, /\/assets\/mermaid-frame-|\/api\/artifacts\/mermaid-frame/, `${e.url}: ${e.text}`);
      assert.match(e.text, /violates the following Content Security Policy directive/);
    }
    assert.deepEqual(await b.csp(), []);
  } finally {
    await b.close();
    conch.stop();
  }
});
