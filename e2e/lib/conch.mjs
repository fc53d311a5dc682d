// A real `conch serve` in a temporary home, a real Chromium, and a page
// server on 127.0.0.1 for the chat to read.

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { createSocket } from "node:dgram";
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
  return serve(home);
}

/** Starts Conch as a new owner would: a fresh home, no password, `conch
 *  serve` on a free port. Resolves to its URL, the setup link it printed,
 *  all it printed, and `conch(...args)` to run the CLI on the same home. */
export async function startFresh(env = {}) {
  const home = mkdtempSync(join(tmpdir(), "conch-e2e-fresh-"));
  return serve(home, env, /^  (http:\/\/\S+\/setup\?token=\S+)$/m);
}

/** The CLI on a home, as a person types it; resolves to its output. */
export function cli(home, args, input) {
  const ran = spawnSync(exe, ["--home", home, ...args], { input: input ?? "", encoding: "utf8" });
  return { status: ran.status, out: ran.stdout, err: ran.stderr };
}

async function serve(home, env = {}, waitFor = null) {
  // Chats work in a folder of their own (never Conch's folder).
  const work = mkdtempSync(join(tmpdir(), "conch-e2e-work-"));
  const child = spawn(exe, ["--home", home, "serve", "--listen", "127.0.0.1:0"], {
    stdio: ["ignore", "pipe", "pipe"],
    cwd: work,
    env: { ...process.env, ...env },
  });
  let err = "";
  let out = "";
  child.stderr.on("data", (d) => (err += d));
  const [url, link] = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`conch serve didn't start: ${out}${err}`)), 20000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/Conch is running at (http:\/\/[^\s]+)/);
      const l = waitFor ? out.match(waitFor) : null;
      if (m && (!waitFor || l)) {
        clearTimeout(timer);
        resolve([m[1], l ? l[1] : null]);
      }
    });
    child.on("exit", (code) => reject(new Error(`conch serve exited ${code}: ${out}${err}`)));
  });
  return {
    url,
    link,
    home,
    work,
    output: () => out,
    stop() {
      // Conch stops its browser on the way out, which closes its profile
      // in its folder: the folders go once Conch has gone (await it to
      // wait for that).
      const clean = () => {
        rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
        rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      };
      const exited = child.exitCode !== null || child.signalCode !== null;
      const done = exited ? Promise.resolve() : new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      return done.then(clean);
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
  return pagesOn(routes, "127.0.0.1");
}

/** The same, reached by the name given (`localhost` is another site than
 *  `127.0.0.1`, and another port is another origin). */
export async function pagesOn(routes, name) {
  const server = createServer((req, res) => {
    const body = routes[req.url ?? "/"];
    res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(body ?? "not here");
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return { base: `http://${name}:${port}`, close: () => server.close() };
}

/** A witness on 127.0.0.1: an HTTP server that logs every TCP connection
 *  and every request (WebSocket upgrades included), and a UDP socket that
 *  logs every datagram (STUN). Whatever reaches it got out. */
export async function witness(routes = {}) {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push({ what: "request", method: req.method, url: req.url, referer: req.headers.referer ?? null, at: Date.now() });
    const body = routes[req.url ?? "/"];
    res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(body ?? "not here");
  });
  server.on("connection", () => seen.push({ what: "connection", at: Date.now() }));
  server.on("upgrade", (req, socket) => {
    seen.push({ what: "upgrade", url: req.url, at: Date.now() });
    socket.destroy();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const udp = createSocket("udp4");
  udp.on("message", (m, from) => seen.push({ what: "datagram", bytes: m.length, from: from.port, at: Date.now() }));
  await new Promise((r) => udp.bind(0, "127.0.0.1", r));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    port: server.address().port,
    udp: udp.address().port,
    seen,
    close: () => {
      server.closeAllConnections?.();
      server.close();
      udp.close();
    },
  };
}

/** Chromium, with every console error and page error kept (with the
 *  address of the document that logged it), every Content-Security-Policy
 *  violation the app's own page sees, and every request any frame made. */
export async function browser(viewport = { width: 1280, height: 860 }, options = {}) {
  const b = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
  const context = await b.newContext({ viewport, colorScheme: options.colorScheme ?? "light" });
  await context.addInitScript(() => {
    if (window !== window.top) return;
    window.__csp = [];
    addEventListener("securitypolicyviolation", (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const page = await context.newPage();
  const errors = [];
  const logged = [];
  const requests = [];
  const finished = [];
  page.on("console", (m) => {
    logged.push({ type: m.type(), text: m.text(), url: m.location().url ?? "" });
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => {
    errors.push(String(e));
    logged.push({ type: "error", text: String(e), url: "" });
  });
  context.on("request", (r) => {
    let frame = "";
    try {
      frame = r.frame().url();
    } catch {
      /* a request with no frame (a service worker's) */
    }
    requests.push({ url: r.url(), frame, at: Date.now() });
  });
  context.on("requestfinished", (r) => {
    let frame = "";
    try {
      frame = r.frame().url();
    } catch {
      /* no frame */
    }
    finished.push({ url: r.url(), frame, at: Date.now() });
  });
  return {
    browser: b,
    context,
    page,
    errors,
    logged,
    requests,
    /** Requests that got an answer (blocked ones fail instead). */
    finished,
    /** Console errors logged by the app's own documents (not by an
     *  artifact's frame, whose page may do anything). */
    appErrors: () => logged.filter((l) => l.type === "error" && !/\/api\/artifacts\/[^/]+\/versions\/\d+\/frame/.test(l.url)).map((l) => (l.text.startsWith("Failed to load resource") ? `${l.text} (${l.url})` : l.text)),
    /** CSP violations the app's own page saw. */
    csp: () => page.evaluate(() => window.__csp ?? []),
    close: () => b.close(),
  };
}

export async function signIn(page, url) {
  await page.goto(url + "/");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "New chat" }).first().waitFor();
}

/** New chat, and on its page: the chat the server made (or reused) is the
 *  one the address names before anything is typed, so nothing typed lands
 *  on the page being left. The sidebar's button (on a phone, opened with
 *  ☰ first; the top bar's title can also read "New chat"). */
export async function newChat(page) {
  // On the first screen the page makes a chat by itself and opens it; a
  // New chat pressed meanwhile would race it (the response waited for
  // below could be that one). Let it land first.
  if (new URL(page.url()).pathname === "/") {
    await page.waitForURL((u) => u.pathname.startsWith("/chats/"), { timeout: 15000 }).catch(() => {});
  }
  const button = page.locator(".sidebar").getByRole("button", { name: "New chat" });
  if (!(await button.isVisible())) {
    await page.getByRole("button", { name: "Chats and pages" }).click();
  }
  const [made] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/api/chats"),
    button.click(),
  ]);
  const { id } = await made.json();
  await page.waitForURL((u) => u.pathname === `/chats/${id}`);
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
        { timeout: 20000 },
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
