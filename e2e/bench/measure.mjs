// The web UI's figures: the first page's size (gzip), time to interactive
// on loopback, Tab presses from a fresh page to sending a message, SSE
// latency from an event's append to its row on the page;
// and the panel's: its lazy parts' sizes, the time from an `artifact`
// event to the panel showing that version (20 versions), and a 5,000-row
// table's sort time and frame rate while it scrolls. Run after
// ./web/build.sh and cargo build:
//   node e2e/bench/measure.mjs

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { browser, idle, newChat, send, signIn, startConch, root } from "../lib/conch.mjs";

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// 1. What the first page loads: index.html and what it links.
const dist = join(root, "web", "dist");
const index = readFileSync(join(dist, "index.html"), "utf8");
const linked = [...index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
let gz = gzipSync(index).length;
let raw = index.length;
for (const path of linked) {
  const bytes = readFileSync(join(dist, path));
  raw += bytes.length;
  gz += gzipSync(bytes, { level: 9 }).length;
}
console.log(`first page: ${(raw / 1024).toFixed(1)} KB, ${(gz / 1024).toFixed(1)} KB gzip (${linked.length + 1} files)`);
// What loads only when it's shown: every other file, none of it linked from
// the first page.
for (const file of readdirSync(join(dist, "assets")).filter((f) => !linked.some((l) => l.endsWith(f))).sort()) {
  if (linked.some((l) => l.endsWith(file))) throw new Error(`${file} is on the first page`);
  const bytes = readFileSync(join(dist, "assets", file));
  console.log(`  lazy ${file.replace(/-[A-Za-z0-9_-]{8}\.(js|css)$/, ".$1")}: ${(bytes.length / 1024).toFixed(1)} KB, ${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(1)} KB gzip`);
}

const conch = await startConch();
const b = await browser();
try {
  const { page } = b;
  await signIn(page, conch.url);
  // Tab presses on a first visit (no chat yet): to New chat, Enter, then to
  // the message box.
  const countTabs = async (label) => {
    for (let n = 0; n <= 80; n++) {
      const at = await page.evaluate(() => document.activeElement?.getAttribute("aria-label") || document.activeElement?.textContent?.trim() || "");
      if (at === label) return n;
      await page.keyboard.press("Tab");
    }
    return NaN;
  };
  await page.goto(conch.url + "/");
  await page.getByRole("button", { name: "New chat" }).first().waitFor();
  const toNew = await countTabs("New chat");
  await page.keyboard.press("Enter");
  await page.getByLabel("Message").waitFor();
  await page.waitForTimeout(300);
  const toMessage = await countTabs("Message");
  console.log(`Tab presses on a first visit: ${toNew} to New chat, Enter, then ${toMessage} to the message box (${toNew + toMessage} in all)`);
  const chatUrl = page.url();
  await send(page, "hello");
  await idle(page);

  // 2. Time to interactive: a signed-in load of a chat until the composer
  // takes input and the transcript is drawn.
  // What a chat page actually fetches when it opens (not only what
  // index.html links): a lazy part fetched at once would show here.
  const fetched = new Map();
  const onResponse = (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith("/assets/")) fetched.set(u.pathname, r.body().then((b) => b.length, () => 0));
  };
  page.on("response", onResponse);
  await page.goto(chatUrl);
  await page.locator(".reply").first().waitFor();
  await page.waitForTimeout(500);
  page.off("response", onResponse);
  const fetchedBytes = (await Promise.all(fetched.values())).reduce((n, b) => n + b, 0);
  console.log(`a chat page opening fetches ${fetched.size} assets, ${(fetchedBytes / 1024).toFixed(1)} KB (+ index.html): ${[...fetched.keys()].map((p) => p.replace(/^\/assets\//, "")).join(", ")}`);

  const loads = [];
  for (let i = 0; i < 10; i++) {
    const t = Date.now();
    await page.goto(chatUrl);
    await page.getByLabel("Message").waitFor();
    await page.locator(".reply").first().waitFor();
    await page.getByLabel("Message").fill("x");
    loads.push(Date.now() - t);
    await page.getByLabel("Message").fill("");
  }
  console.log(`time to interactive (chat page, loopback): median ${median(loads)} ms over ${loads.length} loads`);

  // 2b. Tab presses from a fresh page to sending a message: a signed-in
  // load of the chat, focus on nothing, Tab until the message box has it
  // (then typing and Enter send). And from a first visit with no chat
  // open: Tab to New chat, Enter, then Tab to the message box if it
  // doesn't have focus already.
  await page.goto(chatUrl);
  await page.locator(".reply").first().waitFor();
  const tabsChat = await countTabs("Message");
  console.log(`Tab presses from a fresh load of a chat to the message box: ${tabsChat} (then type, Enter sends)`);

  // 3. SSE latency: when each row appears, against the event's `at`.
  await page.evaluate(() => {
    window.__seen = {};
    new MutationObserver(() => {
      for (const el of document.querySelectorAll(".transcript > li[data-seq]")) {
        const seq = el.getAttribute("data-seq");
        if (!(seq in window.__seen)) window.__seen[seq] = Date.now();
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
  const before = await page.evaluate(() => Math.max(0, ...[...document.querySelectorAll(".transcript > li[data-seq]")].map((e) => Number(e.getAttribute("data-seq")))));
  for (let i = 0; i < 15; i++) {
    await send(page, `hello ${i}`);
    await idle(page);
  }
  const id = chatUrl.split("/").pop();
  const events = await page.evaluate(async (id) => (await fetch(`/api/chats/${id}/events`)).json(), id);
  const seen = await page.evaluate(() => window.__seen);
  const lags = events
    .filter((e) => e.seq > before && e.type === "reply" && seen[e.seq])
    .map((e) => seen[e.seq] - Date.parse(e.at));
  console.log(`SSE latency, reply appended → row drawn: median ${median(lags)} ms over ${lags.length} replies`);

  // 4. The panel: from an `artifact` event's append to the panel showing
  // that version, drawn (a chart), over 20 versions.
  await page.evaluate(() => {
    window.__shown = {};
    new MutationObserver(() => {
      const panel = document.querySelector("aside.panel[data-version]");
      if (!panel || !panel.querySelector(".chart rect.bar")) return;
      const n = panel.getAttribute("data-version");
      if (!(n in window.__shown)) window.__shown[n] = Date.now();
    }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-version"] });
  });
  await send(page, "make me a chart");
  await idle(page);
  for (let i = 0; i < 20; i++) {
    await send(page, "make it bigger");
    await idle(page);
  }
  const made = (await page.evaluate(async (id) => (await fetch(`/api/chats/${id}/events`)).json(), id)).filter((e) => e.type === "artifact");
  const shown = await page.evaluate(() => window.__shown);
  const panelLags = made.filter((e) => e.version > 1 && shown[e.version]).map((e) => shown[e.version] - Date.parse(e.at));
  console.log(`artifact event appended → panel shows that version, drawn: median ${median(panelLags)} ms over ${panelLags.length} versions (max ${Math.max(...panelLags)} ms)`);

  // 5. A table of 5,000 rows: a sort (click → the next frame painted),
  // and the frame rate while it scrolls.
  await send(page, "make me a table with 5000 rows");
  await idle(page);
  await page.locator("aside.panel .data-table").waitFor();
  const sorts = await page.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const times = [];
    const headers = [...document.querySelectorAll("aside.panel .data-table thead .sort")];
    for (let i = 0; i < 12; i++) {
      const t = performance.now();
      headers[i % headers.length].click();
      await frame();
      times.push(performance.now() - t);
    }
    return times;
  });
  const okSorts = sorts;
  console.log(`5,000-row table: sort, click → next frame painted: median ${median(okSorts).toFixed(1)} ms over ${okSorts.length} sorts (max ${Math.max(...okSorts).toFixed(1)} ms)`);
  const scroll = await page.evaluate(async () => {
    const el = document.querySelector("aside.panel .table-scroll");
    const gaps = [];
    let last = performance.now();
    const end = last + 3000;
    await new Promise((done) => {
      const step = (now) => {
        gaps.push(now - last);
        last = now;
        el.scrollTop += 200;
        if (now < end && el.scrollTop + el.clientHeight < el.scrollHeight) requestAnimationFrame(step);
        else done();
      };
      requestAnimationFrame(step);
    });
    const rows = el.querySelectorAll("tbody tr:not(.spacer)").length;
    return { gaps: gaps.slice(1), rows, travelled: el.scrollTop };
  });
  const ms = scroll.gaps.reduce((a, b) => a + b, 0);
  const sorted = [...scroll.gaps].sort((a, b) => a - b);
  console.log(
    `5,000-row table: scrolling 200 px a frame: ${((scroll.gaps.length / ms) * 1000).toFixed(1)} frames/s over ${(ms / 1000).toFixed(1)} s, ` +
      `frame time median ${median(scroll.gaps).toFixed(1)} ms, p95 ${sorted[Math.floor(sorted.length * 0.95)].toFixed(1)} ms; ` +
      `${scroll.rows} rows drawn at a time, ${scroll.travelled} px scrolled`,
  );
} finally {
  await b.close();
  conch.stop();
}
