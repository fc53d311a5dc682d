// The first run, as the README tells a new owner to do it: `conch serve`
// on a fresh home, the link it prints opened in a real Chromium, a password
// chosen, and Conch ready to talk. Then every other way that link can go:
// used, expired, mistyped, and posted by another site.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { axe } from "../lib/axe.mjs";
import { browser, cli, pages, pagesOn, shot, startFresh } from "../lib/conch.mjs";

const CHOSEN = "correct horse battery staple";

/** Every answer Conch gave the browser: its status, its type, where. */
function answers(page, base) {
  const seen = [];
  page.on("response", (r) => {
    if (r.url().startsWith(base)) seen.push({ url: r.url(), status: r.status(), type: r.headers()["content-type"] ?? "" });
  });
  return seen;
}

const passwordSet = (home) => existsSync(join(home, "owner.json"));

async function signInWorks(url, password) {
  const res = await fetch(url + "/api/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ password }),
  });
  return res.status === 200;
}

/** The page a person is looking at: HTML with words, never JSON. */
async function readable(page) {
  const text = await page.locator("body").innerText();
  assert.ok(!text.trim().startsWith("{"), `a bare JSON page: ${text}`);
  assert.equal(await page.locator("h1").count(), 1, text);
  return text;
}

test("from nothing: the printed link, a password, and Conch ready to talk", async () => {
  const conch = await startFresh();
  const b = await browser();
  try {
    const { page } = b;
    const seen = answers(page, conch.url);
    // What the README says Conch prints.
    assert.match(conch.output(), /Conch has no password yet\. Open this link within 15 minutes/);
    assert.ok(conch.link.startsWith(conch.url + "/setup?token="), conch.link);
    await page.goto(conch.link);
    await page.getByRole("heading", { name: "Choose a password" }).waitFor();
    assert.deepEqual(await axe(page), []);
    await shot(page, "00-setup");
    await page.getByLabel("Password", { exact: true }).fill(CHOSEN);
    await page.getByLabel("The same again").fill(CHOSEN);
    await page.getByRole("button", { name: "Set password" }).click();
    // Signed in, on the first screen, with the composer ready.
    await page.waitForURL(conch.url + "/");
    await page.getByLabel("Message").waitFor();
    assert.equal(await page.getByLabel("Message").isEditable(), true);
    await shot(page, "00-first-screen");
    assert.ok(passwordSet(conch.home));
    const refused = seen.filter((a) => a.status >= 400);
    assert.deepEqual(refused, []);
    const session = await page.evaluate(async () => (await fetch("/api/session")).json());
    assert.equal(session.who, "owner");

    // Sign out and back in, and confirm the password where Conch asks
    // for it again: each passes the same check in this browser.
    await page.goto(conch.url + "/settings");
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    assert.equal((await page.evaluate(async () => (await fetch("/api/session")).status)), 401);
    await page.getByLabel("Password").fill(CHOSEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "New chat" }).first().waitFor();
    await page.goto(conch.url + "/settings/security");
    const toggle = page.getByRole("switch", { name: "Check what it remembers" });
    await toggle.click();
    await page.getByLabel("Your password").fill(CHOSEN);
    await page.getByRole("button", { name: "Turn it off" }).click();
    await page.waitForFunction(() => !document.querySelector(".pref .confirm"));
    await page.waitForFunction(
      () => document.querySelector('[role=switch][aria-label="Check what it remembers"]')?.checked === false,
    );
    assert.deepEqual(seen.filter((a) => a.status >= 400 && !a.url.endsWith("/api/session")), []);
    assert.deepEqual(b.appErrors().filter((e) => !e.includes("401")), [], JSON.stringify(b.logged));
  } finally {
    await b.close();
    await conch.stop();
  }
});

test("a wrong confirmation, an expired link and a used one: a readable page each time, and nothing changed", async () => {
  // Links here last 6 seconds, so one can expire while the test waits.
  const conch = await startFresh({ CONCH_SETUP_LINK_SECS: "6" });
  const b = await browser();
  try {
    const { page } = b;
    assert.match(conch.output(), /Open this link within 6 seconds/);
    await page.goto(conch.link);
    // Two passwords that differ: the form again, with why, and nothing set.
    await page.getByLabel("Password", { exact: true }).fill(CHOSEN);
    await page.getByLabel("The same again").fill(CHOSEN + "!");
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByRole("alert").filter({ hasText: "The two passwords aren't the same." }).waitFor();
    await page.getByRole("button", { name: "Set password" }).waitFor();
    assert.equal(passwordSet(conch.home), false);
    await shot(page, "00-setup-mismatch");

    // The link runs out while the form is open: a page that says so and
    // what to do, and still no password.
    await page.waitForTimeout(6500);
    await page.getByLabel("Password", { exact: true }).fill(CHOSEN);
    await page.getByLabel("The same again").fill(CHOSEN);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByRole("heading", { name: "This link has expired" }).waitFor();
    const expired = await readable(page);
    assert.match(expired, /lasts 6 seconds/);
    assert.match(expired, /conch setup/);
    assert.match(expired, /Nothing was changed/);
    assert.equal(passwordSet(conch.home), false);
    assert.deepEqual(await axe(page), []);
    await shot(page, "00-setup-expired");

    // `conch setup` asks the running Conch for a new link, at the address
    // it really serves on (not the default port).
    const asked = cli(conch.home, ["setup"]);
    assert.equal(asked.status, 0, asked.err);
    const fresh = asked.out.match(/^  (http:\/\/\S+\/setup\?token=\S+)$/m)?.[1];
    assert.ok(fresh?.startsWith(conch.url + "/setup?token="), asked.out);
    // Two tabs open it; the first sets the password, the second is too late.
    const second = await b.context.newPage();
    await page.goto(fresh);
    await second.goto(fresh);
    await page.getByLabel("Password", { exact: true }).fill(CHOSEN);
    await page.getByLabel("The same again").fill(CHOSEN);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByLabel("Message").waitFor();
    await second.getByLabel("Password", { exact: true }).fill("somebody else's password");
    await second.getByLabel("The same again").fill("somebody else's password");
    await second.getByRole("button", { name: "Set password" }).click();
    await second.getByRole("heading", { name: "This link has been used" }).waitFor();
    const used = await readable(second);
    assert.match(used, /Sign in/);
    assert.match(used, /Nothing was changed/);
    await shot(second, "00-setup-used");
    // Opening the used link again says the same.
    await second.goto(fresh);
    await second.getByRole("heading", { name: "This link has been used" }).waitFor();
    // The first password stands; the second changed nothing.
    assert.equal(await signInWorks(conch.url, CHOSEN), true);
    assert.equal(await signInWorks(conch.url, "somebody else's password"), false);
    // With a password set, `conch setup` says how to change it instead.
    const again = cli(conch.home, ["setup"]);
    assert.notEqual(again.status, 0);
    assert.match(again.err, /already has a password/);
  } finally {
    await b.close();
    await conch.stop();
  }
});

test("a page a person lands on by mistake is a page, and API clients still get JSON", async () => {
  const conch = await startFresh();
  const b = await browser();
  try {
    const { page } = b;
    const res = await page.goto(conch.url + "/api/chats");
    assert.equal(res.status(), 401);
    assert.match(await readable(page), /Sign in first/);
    const missing = await page.goto(conch.url + "/no/such/page");
    assert.equal(missing.status(), 404);
    assert.match(await readable(page), /Nothing here/);
    await page.goto(conch.url + "/setup?token=not-the-token");
    assert.match(await readable(page), /This link isn't right/);
    // Scripts and curl ask for nothing in particular, or for JSON, and get
    // JSON.
    for (const accept of ["*/*", "application/json", "application/json, text/html;q=0.9"]) {
      const r = await fetch(conch.url + "/api/chats", { headers: { accept } });
      assert.equal(r.status, 401);
      assert.match(r.headers.get("content-type"), /application\/json/, accept);
      assert.equal(typeof (await r.json()).error, "string");
    }
    const plain = await fetch(conch.url + "/api/chats");
    assert.match(plain.headers.get("content-type"), /application\/json/);
  } finally {
    await b.close();
    await conch.stop();
  }
});

test("another site's form can't set the password or sign in, whatever origin it sends", async () => {
  const conch = await startFresh();
  const token = new URL(conch.link).searchParams.get("token");
  // The worst case: the other site even knows the token.
  const setupForm = (extraHead = "", auto = true) => `<!doctype html><html><head>${extraHead}</head><body>
<form id="f" method="post" action="${conch.url}/setup">
<input name="token" value="${token}"><input name="password" value="the attacker's password">
<input name="confirm" value="the attacker's password"><button>Go</button></form>
${auto ? '<script>document.getElementById("f").submit()</script>' : ""}</body></html>`;
  const signInForm = (extraHead = "", auto = true) => `<!doctype html><html><head>${extraHead}</head><body>
<form id="f" method="post" action="${conch.url}/api/session" enctype="text/plain">
<input name='{"password":"${CHOSEN}","x":"' value='"}'><button>Go</button></form>
${auto ? '<script>document.getElementById("f").submit()</script>' : ""}</body></html>`;
  const sandboxed = (inner) =>
    `<!doctype html><iframe sandbox="allow-forms allow-scripts" srcdoc="${inner.replaceAll("&", "&amp;").replaceAll('"', "&quot;")}"></iframe>`;
  const routes = {
    "/setup": setupForm(),
    "/setup-null": setupForm('<meta name="referrer" content="no-referrer">'),
    // A sandboxed frame (an opaque origin, so Origin: null): pressed by the
    // test once the frame is there, so the browser's log sees its request.
    "/setup-sandboxed": sandboxed(setupForm('<meta name="referrer" content="no-referrer">', false)),
    "/session": signInForm(),
    "/session-null": signInForm('<meta name="referrer" content="no-referrer">'),
    "/session-sandboxed": sandboxed(signInForm("", false)),
  };
  // Another port on this computer (the same site, another origin) and
  // another name for it (another site).
  const sameSite = await pages(routes);
  const crossSite = await pagesOn(routes, "localhost");
  const b = await browser();
  try {
    const { page } = b;
    // Each attempt's request to Conch, and Conch's answer when the browser
    // kept it (a sandboxed frame's answer is blocked by Conch's
    // frame-ancestors, and the request then ends as failed).
    const sent = [];
    b.context.on("request", (r) => {
      if (r.method() === "POST" && r.url().startsWith(conch.url)) sent.push(r);
    });
    const tried = async (base, path) => {
      const before = sent.length;
      await page.goto(base + path);
      if (path.endsWith("-sandboxed")) await page.frameLocator("iframe").getByRole("button", { name: "Go" }).click();
      const deadline = Date.now() + 10000;
      while (sent.length === before) {
        if (Date.now() > deadline) throw new Error(`no request reached Conch from ${base}${path}`);
        await page.waitForTimeout(50);
      }
      const answers = await Promise.all(sent.slice(before).map((r) => r.response()));
      return answers.filter(Boolean).map((a) => ({ url: a.url(), status: a.status() }));
    };
    for (const base of [sameSite.base, crossSite.base]) {
      for (const path of ["/setup", "/setup-null", "/setup-sandboxed"]) {
        const got = await tried(base, path);
        assert.ok(got.every((a) => a.status === 403), `${base}${path}: ${JSON.stringify(got)}`);
        assert.equal(passwordSet(conch.home), false, `${base}${path} set the password`);
      }
    }
    // What the person sees when a page sent them there: a page.
    await page.goto(sameSite.base + "/setup-null");
    await page.waitForURL(conch.url + "/setup");
    assert.match(await readable(page), /another site/i);

    // The link still works for the owner, in their own tab.
    await page.goto(conch.link);
    await page.getByLabel("Password", { exact: true }).fill(CHOSEN);
    await page.getByLabel("The same again").fill(CHOSEN);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByLabel("Message").waitFor();
    // Signed out again, another site's sign-in form can't sign this
    // browser in.
    await b.context.clearCookies();
    for (const base of [sameSite.base, crossSite.base]) {
      for (const path of ["/session", "/session-null", "/session-sandboxed"]) {
        const got = await tried(base, path);
        assert.ok(got.every((a) => a.status === 403), `${base}${path}: ${JSON.stringify(got)}`);
        const cookies = await b.context.cookies(conch.url);
        assert.deepEqual(cookies.filter((c) => c.name === "conch_session"), [], `${base}${path} signed in`);
      }
    }
  } finally {
    sameSite.close();
    crossSite.close();
    await b.close();
    await conch.stop();
  }
});
