// A page runs sealed off (ADR 0034 §3): <iframe sandbox="allow-scripts">
// and nothing more (no same origin, popups, forms or top navigation),
// served from /api/artifacts/{id}/versions/{n}/frame with its own CSP.
//
// The bridge: the panel believes two messages, the page's height and
// "open this link", and only from this very frame (event.source). A link
// must be http(s), under 2,048 characters, and not Conch's own; the owner
// is asked "Open evil.example?" with the full address, and a yes opens it
// with noopener,noreferrer.
//
// The runtime check: a frame that loads a second time is stopped and
// blanked with a sentence (a page navigating its own frame is the one way
// out CSP can't close). A version that `navigates` is served without
// scripts; "Run it anyway" asks once and only then loads it with scripts=1.

import { useEffect, useRef, useState } from "preact/hooks";
import type { Asking } from "./Ask";

/** Versions whose scripts the owner chose to run, while the page is open. */
const running = new Set<string>();
/** How many times each frame element has loaded. */
const loadsOf = new WeakMap<HTMLIFrameElement, number>();
export const MAX_ADDRESS = 2048;

/** An address a page may ask to open, or null. */
export function openable(raw: unknown, here = location.origin): URL | null {
  if (typeof raw !== "string" || raw.length >= MAX_ADDRESS) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.origin === here) return null;
  return url;
}

function openLink(url: URL): Asking {
  return {
    question: `Open ${url.hostname}?`,
    detail: (
      <>
        <p>The page wants to open this address in a new tab:</p>
        <code class="address">{url.href}</code>
        <p class="quiet">Whatever is in the address goes to {url.hostname}.</p>
      </>
    ),
    yes: "Open it",
    no: "Don't open",
    onYes: () => {
      window.open(url.href, "_blank", "noopener,noreferrer");
    },
  };
}

export function PageFrame(props: {
  id: string;
  n: number;
  title: string;
  navigates: boolean;
  why: string[];
  onAsk: (a: Asking) => void;
}) {
  const key = `${props.id}:${props.n}`;
  const [run, setRun] = useState(running.has(key));
  const [stopped, setStopped] = useState(false);
  const [height, setHeight] = useState<number | null>(null);
  const [attempt, setAttempt] = useState(0);
  const frame = useRef<HTMLIFrameElement>(null);
  const scripts = !props.navigates || run;
  const src = `/api/artifacts/${encodeURIComponent(props.id)}/versions/${props.n}/frame${props.navigates && run ? "?scripts=1" : ""}`;
  useEffect(() => {
    setRun(running.has(key));
    setStopped(false);
    setHeight(null);
  }, [key]);
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      const f = frame.current;
      if (!f || !e.source || e.source !== f.contentWindow) return;
      const m = e.data as { conch?: unknown; height?: unknown; url?: unknown } | null;
      if (!m || typeof m !== "object") return;
      if (m.conch === "height" && typeof m.height === "number" && Number.isFinite(m.height)) {
        setHeight(Math.min(20000, Math.max(60, Math.ceil(m.height))));
      } else if (m.conch === "open") {
        const url = openable(m.url);
        if (url) props.onAsk(openLink(url));
      }
    };
    addEventListener("message", onMessage);
    return () => removeEventListener("message", onMessage);
  }, [src, attempt]);
  const runAnyway = () =>
    props.onAsk({
      question: "Run this page's scripts?",
      detail: (
        <>
          <p>Conch found a way out of this page: {props.why.slice(0, 3).join("; ") || "it could send its frame somewhere"}.</p>
          <p>
            If its scripts run, what this page shows and anything you type into it could be sent to another address. It still can't reach
            Conch, your chats or your files, and a link it opens still asks you first.
          </p>
        </>
      ),
      yes: "Run it",
      no: "Keep scripts off",
      onYes: () => {
        running.add(key);
        setRun(true);
      },
    });
  if (stopped) {
    return (
      <div class="frame-stopped" role="alert">
        <p>
          This page tried to load a second time, so Conch stopped it and blanked it. A page beside the chat loads once: loading again is how it
          could send what it shows somewhere else.
        </p>
        <button
          onClick={() => {
            setStopped(false);
            setHeight(null);
            setAttempt(attempt + 1);
          }}
        >
          Load it again
        </button>
      </div>
    );
  }
  return (
    <div class={`page-frame${height && scripts ? " sized" : ""}`}>
      {props.navigates && !run && (
        <div class="frame-note" role="note">
          <p>This page has a way out ({props.why[0] ?? "a link out"}), so it's shown with its scripts off.</p>
          <button onClick={runAnyway}>Run it anyway</button>
        </div>
      )}
      <iframe
        key={`${src}#${attempt}`}
        ref={frame}
        src={src}
        sandbox="allow-scripts"
        referrerpolicy="no-referrer"
        title={props.title}
        style={height && scripts ? { height: `${height}px` } : undefined}
        onLoad={(e) => {
          const f = e.currentTarget as HTMLIFrameElement;
          const loads = (loadsOf.get(f) ?? 0) + 1;
          loadsOf.set(f, loads);
          if (loads > 1) setStopped(true);
        }}
      />
    </div>
  );
}
