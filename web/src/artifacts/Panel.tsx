// The panel beside the chat (ADR 0034 §2): View (Use, for a page), Code
// and Changes; a version picker; Copy, Download, Pin, Full screen
// and Delete (asked once). Its edge drags (or takes the arrow keys) to
// resize it, and the width is remembered. Loaded the first time something
// is shown beside a chat.

import { useEffect, useRef, useState } from "preact/hooks";
import { type Artifact, type ArtifactVersion } from "../api";
import { pageApi } from "../pageApi";
import { navigate } from "../router";
import { Ask, type Asking } from "./Ask";
import { changed, describe, forget, onChange, versionText } from "./cache";
import { Changes } from "./Changes";
import { Code } from "./Code";
import { kindWord } from "./kinds";
import { useText, View } from "./View";
import { copy } from "../copy";

export interface Shown {
  id: string;
  version: number;
}

type Tab = "view" | "code" | "changes";
const WIDTH = "conch.panelWidth";
export const MIN_WIDTH = 320;
/** What the chat keeps beside a panel at its widest. */
const CHAT_MIN = 360;

const maxWidth = () => Math.max(MIN_WIDTH, window.innerWidth - CHAT_MIN - 270);

function firstWidth(): number {
  const kept = Number(localStorage.getItem(WIDTH));
  const want = Number.isFinite(kept) && kept > 0 ? kept : Math.round(window.innerWidth * 0.42);
  return Math.min(maxWidth(), Math.max(MIN_WIDTH, want));
}

export const byWords: Record<ArtifactVersion["by"], string> = { made: "made", updated: "changed", refreshed: "refreshed" };

export function versionLabel(v: ArtifactVersion, latest: number): string {
  const at = new Date(v.at);
  const when = Number.isNaN(at.getTime()) ? "" : ` · ${at.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" })}`;
  return `Version ${v.n}${v.n === latest ? " (newest)" : ""} · ${byWords[v.by] ?? v.by}${when}`;
}

/** The artifact's description, kept up to date when it changes. */
export function useArtifact(id: string): { artifact: Artifact | null; error: string | null } {
  const [state, setState] = useState<{ id: string; artifact: Artifact | null; error: string | null }>({ id, artifact: null, error: null });
  useEffect(() => {
    let live = true;
    const load = () =>
      describe(id).then(
        (artifact) => live && setState({ id, artifact, error: null }),
        (e: unknown) => live && setState({ id, artifact: null, error: e instanceof Error ? e.message : String(e) }),
      );
    void load();
    const off = onChange(() => void load());
    return () => {
      live = false;
      off();
    };
  }, [id]);
  return state.id === id ? state : { artifact: null, error: null };
}

const TABS: Tab[] = ["view", "code", "changes"];

function Tabs(props: { tab: Tab; page: boolean; onTab: (t: Tab) => void }) {
  const names: Record<Tab, string> = { view: props.page ? "Use" : "View", code: "Code", changes: "Changes" };
  return (
    <div
      class="tabs"
      role="tablist"
      aria-label="Show"
      onKeyDown={(e) => {
        const at = TABS.indexOf(props.tab);
        const to = e.key === "ArrowRight" ? (at + 1) % 3 : e.key === "ArrowLeft" ? (at + 2) % 3 : e.key === "Home" ? 0 : e.key === "End" ? 2 : -1;
        if (to < 0) return;
        e.preventDefault();
        props.onTab(TABS[to]);
        (e.currentTarget.querySelectorAll("[role=tab]")[to] as HTMLElement | undefined)?.focus();
      }}
    >
      {TABS.map((t) => (
        <button
          key={t}
          role="tab"
          id={`tab-${t}`}
          aria-selected={props.tab === t}
          aria-controls="panel-body"
          tabIndex={props.tab === t ? 0 : -1}
          class={props.tab === t ? "on" : ""}
          onClick={() => props.onTab(t)}
        >
          {names[t]}
        </button>
      ))}
    </div>
  );
}

function CodeTab({ artifact, n }: { artifact: Artifact; n: number }) {
  const { text, error } = useText(artifact.id, n);
  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  return text === null ? <p class="quiet">Loading…</p> : <Code kind={artifact.kind} text={text} />;
}

export function Panel(props: { shown: Shown; chat: string; onShow: (s: Shown) => void; onClose: () => void }) {
  const { id } = props.shown;
  const { artifact, error } = useArtifact(id);
  const [tab, setTab] = useState<Tab>("view");
  const [asking, setAsking] = useState<Asking | null>(null);
  const [said, setSaid] = useState("");
  const [width, setWidth] = useState(firstWidth);
  const [full, setFull] = useState(false);
  const self = useRef<HTMLElement>(null);
  const n = props.shown.version || artifact?.latest || 0;
  useEffect(() => {
    setTab("view");
    setAsking(null);
    setSaid("");
  }, [id]);
  useEffect(() => setAsking(null), [n]);
  useEffect(() => {
    const change = () => setFull(document.fullscreenElement === self.current && self.current !== null);
    document.addEventListener("fullscreenchange", change);
    return () => document.removeEventListener("fullscreenchange", change);
  }, []);
  const keep = (w: number) => {
    const clamped = Math.min(maxWidth(), Math.max(MIN_WIDTH, Math.round(w)));
    setWidth(clamped);
    localStorage.setItem(WIDTH, String(clamped));
  };
  const drag = (e: PointerEvent) => {
    const edge = e.currentTarget as HTMLElement;
    edge.setPointerCapture(e.pointerId);
    const move = (m: PointerEvent) => keep(window.innerWidth - m.clientX);
    const up = () => {
      edge.removeEventListener("pointermove", move);
      edge.removeEventListener("pointerup", up);
      edge.removeEventListener("pointercancel", up);
    };
    edge.addEventListener("pointermove", move);
    edge.addEventListener("pointerup", up);
    edge.addEventListener("pointercancel", up);
    e.preventDefault();
  };
  const ask = (a: Asking) => setAsking((now) => now ?? a);
  const act = (f: () => Promise<string>) => {
    setSaid("");
    f().then(setSaid, (e: unknown) => setSaid(e instanceof Error ? e.message : String(e)));
  };
  const title = artifact?.title ?? "";
  const page = artifact?.kind === "html";
  const versions = artifact ? [...artifact.versions].reverse() : [];
  const version = artifact?.versions.find((v) => v.n === n);
  const toggleFull = async () => {
    const el = self.current;
    if (!el) return;
    if (document.fullscreenElement) return void (await document.exitFullscreen());
    if (full) return setFull(false);
    try {
      await el.requestFullscreen();
    } catch {
      // Where full screen isn't allowed, the panel fills the window.
      setFull(true);
    }
  };
  let body;
  if (error) {
    body = (
      <p class="error" role="alert">
        {error}
      </p>
    );
  } else if (!artifact) {
    body = <p class="quiet">Opening…</p>;
  } else if (!version) {
    body = <p class="quiet">Version {n} isn't kept any more: only the first and the newest 29 are. Pick another version.</p>;
  } else if (tab === "view") {
    body = <View artifact={artifact} n={n} onAsk={ask} />;
  } else if (tab === "code") {
    body = <CodeTab artifact={artifact} n={n} />;
  } else {
    body = <Changes id={artifact.id} n={n} kind={artifact.kind} />;
  }
  return (
    <aside
      ref={self}
      class={`panel kind-${artifact?.kind ?? "unknown"}${full ? " full" : ""}`}
      aria-label={`Beside the chat${title ? `: ${title}` : ""}`}
      style={{ width: `${width}px` }}
      data-artifact={id}
      data-version={version ? n : undefined}
      onKeyDown={(e) => {
        if (e.key === "Escape" && full && !document.fullscreenElement) setFull(false);
      }}
    >
      <div
        class="panel-edge"
        role="separator"
        aria-orientation="vertical"
        aria-label="Panel width: drag, or use the arrow keys"
        aria-valuemin={MIN_WIDTH}
        aria-valuemax={maxWidth()}
        aria-valuenow={width}
        tabIndex={0}
        onPointerDown={drag}
        onKeyDown={(e) => {
          const step = e.shiftKey ? 80 : 24;
          const to = e.key === "ArrowLeft" ? width + step : e.key === "ArrowRight" ? width - step : e.key === "Home" ? maxWidth() : e.key === "End" ? MIN_WIDTH : null;
          if (to === null) return;
          e.preventDefault();
          keep(to);
        }}
      />
      <div class="panel-inner">
        <header class="panel-head">
          <button class="panel-back" onClick={props.onClose}>
            ← Back to the chat
          </button>
          <div class="panel-title">
            {artifact && <span class="badge">{kindWord(artifact.kind)}</span>}
            <h2>{title || "…"}</h2>
          </div>
          {artifact && versions.length > 0 && (
            <label class="version-picker">
              <span class="visually-hidden">Version</span>
              <select value={String(n)} onChange={(e) => props.onShow({ id, version: Number((e.target as HTMLSelectElement).value) })}>
                {versions.map((v) => (
                  <option key={v.n} value={String(v.n)}>
                    {versionLabel(v, artifact.latest)}
                  </option>
                ))}
              </select>
            </label>
          )}
          <button class="panel-close" aria-label="Close the panel" title="Close" onClick={props.onClose}>
            ×
          </button>
        </header>
        {artifact && version && (
          <div class="panel-bar">
            <Tabs tab={tab} page={page} onTab={setTab} />
            <div class="panel-actions">
              <button
                class="small"
                onClick={() =>
                  act(async () => {
                    await copy(await versionText(id, n));
                    return `Copied version ${n}.`;
                  })
                }
              >
                Copy
              </button>
              <a class="button small" href={`/api/artifacts/${encodeURIComponent(id)}/versions/${n}/download`} download>
                Download
              </a>
              <button
                class="small"
                aria-pressed={artifact.pinned}
                onClick={() =>
                  act(async () => {
                    const r = await pageApi.pin(id, !artifact.pinned);
                    changed(id);
                    return r.pinned ? "Pinned: it's under Pinned in the sidebar." : "Unpinned: it left the sidebar.";
                  })
                }
              >
                {artifact.pinned ? "Unpin" : "Pin"}
              </button>
              {artifact.pinned && (
                <button class="small" onClick={() => navigate(`/apps/${encodeURIComponent(id)}`)}>
                  Open on its own page
                </button>
              )}
              <button class="small" aria-pressed={full} onClick={() => void toggleFull()}>
                {full ? "Leave full screen" : "Full screen"}
              </button>
              <button
                class="small danger"
                onClick={() =>
                  setAsking({
                    question: `Delete "${title}"?`,
                    detail: (
                      <p>
                        {artifact.versions.length === 1 ? "Its one version goes" : `All ${artifact.versions.length} of its versions go`}
                        {artifact.pinned ? ", and it leaves Pinned" : ""}. This can't be undone; the chat keeps its cards.
                      </p>
                    ),
                    yes: "Delete",
                    no: "Keep it",
                    danger: true,
                    onYes: async () => {
                      await pageApi.deleteArtifact(id);
                      // Closed first, so nothing here asks for it again.
                      props.onClose();
                      forget(id);
                    },
                  })
                }
              >
                Delete
              </button>
            </div>
          </div>
        )}
        <p class="panel-said" role="status" aria-live="polite">
          {said}
        </p>
        {asking && <Ask asking={asking} onDone={() => setAsking(null)} />}
        <div class={`panel-body tab-${tab}`} id="panel-body" role="tabpanel" aria-labelledby={`tab-${tab}`}>
          {body}
        </div>
      </div>
    </aside>
  );
}
