// The diagram renderer: one hidden frame, sealed like a page (sandbox
// allow-scripts, opaque origin, no network), made the first time a diagram
// is shown. Mermaid runs in it, never in the app's own page; it answers
// with SVG text, which the panel shows as an <img>. Answers count only
// from that frame, and a frame that loads twice is dropped.

let frame: HTMLIFrameElement | null = null;
let ready: Promise<HTMLIFrameElement> | null = null;
let next = 1;
const waiting = new Map<number, { ok: (svg: string) => void; fail: (e: Error) => void }>();
const drawn = new Map<string, Promise<string>>();

function drop(why: string): void {
  frame?.remove();
  frame = null;
  ready = null;
  for (const w of waiting.values()) w.fail(new Error(why));
  waiting.clear();
}

function onMessage(e: MessageEvent): void {
  if (!frame || !e.source || e.source !== frame.contentWindow) return;
  const m = e.data as { conch?: unknown; id?: unknown; svg?: unknown; error?: unknown } | null;
  if (!m || m.conch !== "diagram" || typeof m.id !== "number") return;
  const w = waiting.get(m.id);
  if (!w) return;
  waiting.delete(m.id);
  if (typeof m.svg === "string") w.ok(m.svg);
  else w.fail(new Error(typeof m.error === "string" ? m.error : "The diagram couldn't be drawn."));
}

function start(): Promise<HTMLIFrameElement> {
  if (ready) return ready;
  addEventListener("message", onMessage);
  ready = new Promise<HTMLIFrameElement>((resolve, reject) => {
    const f = document.createElement("iframe");
    f.setAttribute("sandbox", "allow-scripts");
    f.setAttribute("aria-hidden", "true");
    f.setAttribute("referrerpolicy", "no-referrer");
    f.tabIndex = -1;
    f.title = "Diagram renderer";
    f.className = "diagram-renderer";
    let loads = 0;
    const timer = setTimeout(() => {
      drop("The diagram renderer didn't start.");
      reject(new Error("The diagram renderer didn't start."));
    }, 30000);
    const hello = (e: MessageEvent) => {
      if (e.source !== f.contentWindow || (e.data as { conch?: unknown })?.conch !== "ready") return;
      removeEventListener("message", hello);
      clearTimeout(timer);
      resolve(f);
    };
    addEventListener("message", hello);
    f.addEventListener("load", () => {
      loads += 1;
      if (loads > 1) drop("The diagram renderer loaded a second time, so Conch stopped it.");
    });
    f.src = "/api/artifacts/mermaid-frame";
    document.body.append(f);
    frame = f;
  });
  return ready;
}

/** The SVG of a Mermaid diagram, drawn once per text and theme. */
export function render(text: string, dark: boolean): Promise<string> {
  const key = `${dark ? "dark" : "light"}\n${text}`;
  let p = drawn.get(key);
  if (!p) {
    p = start().then(
      (f) =>
        new Promise<string>((ok, fail) => {
          const id = next++;
          waiting.set(id, { ok, fail });
          f.contentWindow?.postMessage({ conch: "render", id, text, dark }, "*");
          setTimeout(() => {
            if (waiting.delete(id)) fail(new Error("The diagram took too long to draw."));
          }, 30000);
        }),
    );
    p.catch(() => drawn.delete(key));
    drawn.set(key, p);
  }
  return p;
}
