// Every way out of a page's frame the record lists (ADR 0034 §3), tried
// from inside the frame in real Chromium, with the page's scripts running
// ("Run it anyway" pressed). A witness on 127.0.0.1 (HTTP, raw TCP
// connections, UDP for STUN) proves nothing got out; the browser's own log
// of answered requests proves nothing of Conch's was reached.

import { test } from "node:test";
import assert from "node:assert/strict";
import { browser, idle, newChat, send, shot, signIn, startConch, witness } from "../lib/conch.mjs";
import { escapePage } from "../lib/escape-page.mjs";

const ATTEMPTS = [
  "cookie", "localStorage", "sessionStorage", "indexedDB", "parent.document", "top.document", "parent.location.href",
  "fetch the API", "fetch the API by path", "fetch outside", "xhr the API", "xhr outside", "websocket",
  "eventsource the API", "eventsource outside", "sendBeacon", "top navigation", "window.open", "form submit",
  "image", "stylesheet", "font", "media", "dns-prefetch", "preconnect", "prefetch", "prerender", "webrtc",
];

test("a page tries every way out from inside its frame, and nothing gets out or is reached", async () => {
  const out = await witness();
  // The witness itself works: a request, and a datagram, are seen.
  await fetch(`${out.base}/control`);
  const { createSocket } = await import("node:dgram");
  const udp = createSocket("udp4");
  await new Promise((r) => udp.send("stun?", out.udp, "127.0.0.1", r));
  udp.close();
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(out.seen.map((s) => s.what).sort(), ["connection", "datagram", "request"]);
  out.seen.length = 0;
  const conch = await startConch();
  const b = await browser();
  try {
    const { page } = b;
    await signIn(page, conch.url);
    await newChat(page);
    const html = escapePage({ out: out.base, udp: out.udp, conch: conch.url });
    await send(page, `make me this page, called "Every way out":\n\`\`\`html\n${html}\n\`\`\``);
    await idle(page);

    // The static check found its ways out: shown with scripts off first.
    const note = page.locator(".frame-note");
    await note.waitFor();
    const iframe = page.locator(".page-frame iframe");
    assert.equal(await iframe.getAttribute("sandbox"), "allow-scripts");
    assert.match(await iframe.getAttribute("src"), /\/frame$/);
    // Run it anyway asks once, honestly, and only then loads scripts=1.
    await page.getByRole("button", { name: "Run it anyway" }).click();
    const ask = page.locator(".ask");
    assert.match(await ask.innerText(), /could be sent to another address/);
    assert.match(await ask.innerText(), /can't reach\s+Conch, your chats or your files/);
    await page.getByRole("button", { name: "Run it", exact: true }).click();
    await page.waitForFunction(() => document.querySelector(".page-frame iframe")?.getAttribute("src")?.endsWith("?scripts=1"));
    const frame = await (await iframe.elementHandle()).contentFrame();
    await frame.waitForFunction(() => document.getElementById("results")?.textContent.includes('"done": true'), null, { timeout: 15000 });
    const results = JSON.parse(await frame.locator("#results").innerText());
    for (const a of ATTEMPTS) assert.ok(a in results, `the page tried ${a}`);

    // What the page itself saw: no cookie, no storage, no way up.
    for (const a of ["cookie", "localStorage", "sessionStorage", "indexedDB", "parent.document", "top.document", "parent.location.href"]) {
      assert.match(results[a], /^threw SecurityError/, `${a}: ${results[a]}`);
    }
    for (const a of ["fetch the API", "fetch the API by path", "fetch outside"]) assert.match(results[a], /^rejected/, `${a}: ${results[a]}`);
    for (const a of ["xhr the API loaded", "xhr outside loaded", "websocket open", "eventsource the API open", "eventsource outside open", "image loaded", "font loaded"]) {
      assert.equal(results[a], "no", `${a}: ${results[a]}`);
    }
    assert.equal(results["window.open"], "no error: null", "no popup");
    // sendBeacon says it queued the beacon; CSP refuses it before it
    // leaves (the witness below is what counts).

    // The bridge asks before a link opens, with the full address: No.
    for (const link of ["/top-link", "/link?d=secret"]) {
      if (link !== "/top-link") await frame.locator("#out").click();
      await ask.waitFor();
      assert.match(await ask.locator(".ask-question").innerText(), /^Open 127\.0\.0\.1\?$/);
      assert.equal(await ask.locator(".address").innerText(), out.base + link);
      await page.getByRole("button", { name: "Don't open" }).click();
      await ask.waitFor({ state: "detached" });
    }
    await shot(page, "30-escape-attempts");

    // Messages the panel must not believe: from the real frame, an address
    // that isn't http(s), one of 2,048 characters or more, Conch's own.
    await frame.evaluate(
      ({ out, conch }) => {
        for (const url of ["javascript:alert(1)", "data:text/html,x", `${out}/${"x".repeat(2048)}`, `${conch}/api/chats`, 42]) {
          parent.postMessage({ conch: "open", url }, "*");
        }
        parent.postMessage({ conch: "height", height: "9999" }, "*");
        parent.postMessage({ conch: "navigate", url: `${out}/other-kind` }, "*");
      },
      { out: out.base, conch: conch.url },
    );
    // Forged bridge messages from other windows: the app's own window, a
    // frame of Conch's own, and a window it opened.
    const before = await iframe.evaluate((f) => f.style.height);
    const forged = { conch: "open", url: `${out.base}/forged` };
    await page.evaluate((m) => {
      window.postMessage(m, "*");
      window.postMessage({ conch: "height", height: 5 }, "*");
    }, forged);
    await page.evaluate(() => {
      const f = document.createElement("iframe");
      f.id = "forger";
      document.body.append(f);
    });
    const forger = await (await page.locator("#forger").elementHandle()).contentFrame();
    await forger.evaluate((m) => {
      parent.postMessage(m, "*");
      parent.postMessage({ conch: "height", height: 5 }, "*");
    }, forged);
    const [popup] = await Promise.all([page.waitForEvent("popup"), page.evaluate(() => void open("/favicon.svg", "forger"))]);
    await popup.evaluate((m) => {
      opener.postMessage(m, "*");
      opener.postMessage({ conch: "height", height: 5 }, "*");
    }, forged);
    await popup.close();
    await page.waitForTimeout(500);
    assert.equal(await ask.count(), 0, "no forged message was believed");
    assert.equal(await iframe.evaluate((f) => f.style.height), before, "the height is the frame's own");

    // A second load of the frame is stopped and blanked, with a sentence.
    await frame.locator("#again").click();
    const stopped = page.locator(".frame-stopped");
    await stopped.waitFor();
    assert.match(await stopped.innerText(), /tried to load a second time, so Conch stopped it and blanked it/);
    assert.equal(await page.locator(".page-frame iframe").count(), 0, "blanked: the frame is gone");
    await shot(page, "31-escape-blanked");

    // Opened straight, not in the panel, the frame is still nobody: its own
    // CSP sandboxes it.
    const direct = await b.context.newPage();
    const src = `${conch.url}/api/artifacts/${await page.locator(".panel").getAttribute("data-artifact")}/versions/1/frame?scripts=1`;
    await direct.goto(src);
    const straight = await direct.evaluate(async () => {
      const out = {};
      try {
        out.cookie = document.cookie;
      } catch (e) {
        out.cookie = e.name;
      }
      try {
        out.fetch = (await fetch("/api/chats")).status;
      } catch (e) {
        out.fetch = e.name;
      }
      return out;
    });
    assert.deepEqual(straight, { cookie: "SecurityError", fetch: "TypeError" });
    await direct.close();

    // Nothing got out: not a request, not a connection, not a datagram.
    await page.waitForTimeout(1500);
    assert.deepEqual(out.seen, [], "the witness saw nothing");
    const reached = b.finished.filter((r) => r.url.startsWith(out.base));
    assert.deepEqual(reached, [], "no request outside got an answer");
    // And nothing of Conch's was reached from the frame: the only answered
    // requests a frame made are its own document.
    const fromFrame = b.finished.filter((r) => /\/frame(\?scripts=1)?$/.test(r.frame) && !r.url.endsWith("/frame") && !r.url.endsWith("/frame?scripts=1"));
    assert.deepEqual(fromFrame, [], "the frame reached nothing");
    // The app's own page logged no error and saw no CSP violation: every
    // refusal was the frame's.
    assert.deepEqual(b.appErrors(), []);
    assert.deepEqual(await b.csp(), []);
  } finally {
    await b.close();
    conch.stop();
    out.close();
  }
});
