// A real `conch serve` in a temporary home, a real Chromium, and a page
// server on 127.0.0.1 for the chat to read.

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, "..", "..");
export const PASSWORD = "a long test password";
const exe = process.env.CONCH_BIN ?? join(root, "target", "debug", "conch");
export const shots = join(root, "e2e", "screenshots");
mkdirSync(shots, { recursive: true });

/** Starts Conch on a free port with a password set; resolves to its URL. */
export async function startConch(setup = () => {}) {
  const home = mkdtempSync(join(tmpdir(), "conch-e2e-"));
  setup(home);
  const set = spawnSync(exe, ["--home", home, "setup", "--password-stdin"], { input: PASSWORD + "\n" });
  if (set.status !== 0) throw new Error(`conch setup failed: ${set.stderr}`);
  // Chats work in a folder of their own (never Conch's folder).
  const work = mkdtempSync(join(tmpdir(), "conch-e2e-work-"));
  const child = spawn(exe, ["--home", home, "serve", "--listen", "127.0.0.1:0"], {
    stdio: ["ignore", "pipe", "pipe"],
    cwd: work,
  });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const url = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`conch serve didn't start: ${out}${err}`)), 20000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/Conch is running at (http:\/\/[^\s]+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`conch serve exited ${code}: ${out}${err}`)));
  });
  return {
    url,
    home,
    stop() {
      child.kill();
      rmSync(home, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    },
  };
}

export function writeSkill(home, name, front) {
  const dir = join(home, "skills", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: Sets things up\n${front}---\nDo the ${name} steps.\n`);
}

/** A page server on 127.0.0.1: path → HTML. */
export async function pages(routes) {
  const server = createServer((req, res) => {
    const body = routes[req.url ?? "/"];
    res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(body ?? "not here");
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return { base: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** Chromium, with every console error and page error kept. */
export async function browser(viewport = { width: 1280, height: 860 }) {
  const b = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
  const context = await b.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return { browser: b, page, errors, close: () => b.close() };
}

export async function signIn(page, url) {
  await page.goto(url + "/");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "New chat" }).first().waitFor();
}

export async function newChat(page) {
  await page.locator(".sidebar").getByRole("button", { name: "New chat" }).click();
  await page.getByLabel("Message").waitFor();
}

export async function send(page, text) {
  const owners = page.locator(".message.from-owner");
  const before = await owners.count();
  await page.getByLabel("Message").fill(text);
  await page.getByLabel("Message").press("Enter");
  await owners.nth(before).waitFor();
}

/** Waits until the chat has answered the owner's last message: a turn
 *  ended after it, the chat isn't running, and the page shows it all. */
export async function idle(page) {
  const id = page.url().split("/").pop();
  const deadline = Date.now() + 30000;
  for (;;) {
    const state = await page.evaluate(async (id) => {
      const chat = await (await fetch(`/api/chats/${id}`)).json();
      const events = await (await fetch(`/api/chats/${id}/events`)).json();
      const lastOwner = Math.max(0, ...events.filter((e) => e.type === "message").map((e) => e.seq));
      const ended = events.some((e) => e.type === "turn.ended" && e.seq > lastOwner);
      const waiting = events.some((e) => e.type === "permission.requested" && e.seq > lastOwner) && chat.waiting.length > 0;
      return { done: (ended && !chat.running && chat.turnOpen === null) || waiting };
    }, id);
    if (state.done) {
      // The page has drawn up to there, and shows no running turn.
      await page.waitForFunction(
        () =>
          !document.querySelector(".reply.streaming") &&
          ![...document.querySelectorAll(".composer button")].some((b) => b.textContent === "Stop"),
        null,
        { timeout: 10000 },
      );
      return;
    }
    if (Date.now() > deadline) throw new Error("the chat didn't finish its turn");
    await page.waitForTimeout(50);
  }
}

export async function shot(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: false });
}
