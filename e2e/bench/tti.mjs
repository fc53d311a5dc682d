// Time to interactive of a chat page, two builds side by side: each load
// of one is followed by a load of the other, so a busy machine slows both
// alike. A load is a signed-in goto of a chat with one exchange, until the
// message box takes input and the transcript is drawn.
//   node e2e/bench/tti.mjs BASELINE_BIN [CANDIDATE_BIN] [LOADS]
// (the candidate defaults to target/debug/conch; 30 loads each.)

import { join } from "node:path";
import { browser, idle, newChat, send, signIn, startConch, root } from "../lib/conch.mjs";

const [baseBin, candBin = join(root, "target", "debug", "conch"), n = "30"] = process.argv.slice(2);
if (!baseBin) throw new Error("usage: node e2e/bench/tti.mjs BASELINE_BIN [CANDIDATE_BIN] [LOADS]");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function setUp(bin) {
  process.env.CONCH_BIN = bin;
  const conch = await startConch();
  const b = await browser();
  await signIn(b.page, conch.url);
  await newChat(b.page);
  await send(b.page, "hello");
  await idle(b.page);
  return { conch, b, url: b.page.url() };
}

async function load({ b, url }) {
  const { page } = b;
  const t = Date.now();
  await page.goto(url);
  await page.getByLabel("Message").waitFor();
  await page.locator(".reply").first().waitFor();
  await page.getByLabel("Message").fill("x");
  const ms = Date.now() - t;
  await page.getByLabel("Message").fill("");
  return ms;
}

const base = await setUp(baseBin);
const cand = await setUp(candBin);
try {
  const times = { base: [], cand: [] };
  for (let i = 0; i < 3; i++) {
    await load(base);
    await load(cand);
  }
  for (let i = 0; i < Number(n); i++) {
    times.base.push(await load(base));
    times.cand.push(await load(cand));
  }
  const [mb, mc] = [median(times.base), median(times.cand)];
  console.log(`time to interactive, chat page on loopback, ${n} interleaved loads each: baseline median ${mb} ms, candidate ${mc} ms (${((mc / mb - 1) * 100).toFixed(0)}%)`);
} finally {
  for (const s of [base, cand]) {
    await s.b.close();
    s.conch.stop();
  }
}
