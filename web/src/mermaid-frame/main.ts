// Renders Mermaid diagrams inside a sealed frame (sandbox allow-scripts,
// an opaque origin, CSP with no network). It listens only to the page
// that holds it, and answers with the SVG as text; the panel shows that
// as an <img>, so nothing in it can run or fetch.
//
// Mermaid runs at securityLevel 'strict' with HTML labels off, and a
// diagram's own %%{init}%% or front-matter config can't change either
// (they are in `secure`).

import mermaid from "mermaid";

interface Render {
  conch: "render";
  id: number;
  text: string;
  dark: boolean;
}

const SECURE = [
  "secure",
  "securityLevel",
  "startOnLoad",
  "maxTextSize",
  "maxEdges",
  "htmlLabels",
  "flowchart",
  "dompurifyConfig",
  "suppressErrorRendering",
  "logLevel",
  "fontFamily",
  "themeCSS",
  "themeVariables",
  "theme",
];

function setUp(dark: boolean): void {
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    secure: SECURE,
    suppressErrorRendering: true,
    logLevel: "fatal",
    deterministicIds: true,
    maxTextSize: 400000,
    theme: dark ? "dark" : "default",
    fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
  });
}

/** The SVG made fit for an <img>: read with the HTML parser (Mermaid's
 *  output isn't always well-formed XML: a `click … href` link comes out with
 *  an unbound xlink prefix), with no links, handlers, scripts or HTML in it
 *  (an <img> can't follow them anyway), sized from its viewBox, and written
 *  back as well-formed XML. The document it's read into is inert. */
export function fit(svg: string): string {
  const doc = new DOMParser().parseFromString(`<!doctype html><body>${svg}`, "text/html");
  const root = doc.querySelector("body > svg");
  if (!root) throw new Error("Mermaid didn't make an SVG.");
  root.querySelectorAll("script, foreignObject, iframe, object, embed").forEach((el) => el.remove());
  for (const el of [root, ...root.querySelectorAll("*")]) {
    for (const a of [...el.attributes]) {
      const name = a.name.toLowerCase();
      if (name.startsWith("on") || ((name === "href" || name.endsWith(":href")) && !a.value.trim().startsWith("#"))) {
        el.removeAttributeNode(a);
      }
    }
  }
  const box = (root.getAttribute("viewBox") ?? "").split(/[\s,]+/).map(Number);
  if (box.length === 4 && box.every(Number.isFinite)) {
    root.setAttribute("width", String(Math.ceil(box[2])));
    root.setAttribute("height", String(Math.ceil(box[3])));
  }
  root.removeAttribute("style");
  return new XMLSerializer().serializeToString(root);
}

let n = 0;
addEventListener("message", (e: MessageEvent) => {
  if (e.source !== parent) return;
  const m = e.data as Render;
  if (!m || m.conch !== "render" || typeof m.text !== "string" || typeof m.id !== "number") return;
  setUp(Boolean(m.dark));
  n += 1;
  mermaid
    .render(`conch-diagram-${n}`, m.text)
    .then(({ svg }) => parent.postMessage({ conch: "diagram", id: m.id, svg: fit(svg) }, "*"))
    .catch((err: unknown) => {
      const said = err instanceof Error ? err.message : String(err);
      parent.postMessage({ conch: "diagram", id: m.id, error: said.split("\n").slice(0, 6).join("\n") }, "*");
    })
    .finally(() => {
      // Mermaid leaves its measuring element behind on errors.
      document.querySelectorAll("body > :not(script)").forEach((el) => el.remove());
    });
});
parent.postMessage({ conch: "ready" }, "*");
