// The web UI's figures: the first page's size (gzip), time to interactive
// on loopback, and SSE latency from an event's append to its row on the
// page. Run after ./web/build.sh and cargo build:
//   node e2e/bench/measure.mjs

import { readFileSync } from "node:fs";
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

const conch = await startConch();
const b = await browser();
try {
  const { page } = b;
  await signIn(page, conch.url);
  await newChat(page);
  const chatUrl = page.url();
  await send(page, "hello");
  await idle(page);

  // 2. Time to interactive: a signed-in load of a chat until the composer
  // takes input and the transcript is drawn.
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
} finally {
  await b.close();
  conch.stop();
}
