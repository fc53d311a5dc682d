import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, type Mode } from "../api";
import { changed, onShowBeside } from "../artifacts/cache";
import { lazyPart } from "../artifacts/lazy";
import { fold, type Question } from "../events";
import { ChatStream, type Live } from "../stream";
import { Composer } from "./Composer";
import { HoldsBar } from "./HoldsBar";
import { Transcript } from "./Transcript";

/** What the panel beside the chat shows. */
export interface Shown {
  id: string;
  version: number;
}

const usePanel = lazyPart(() => import("../artifacts/Panel"));

/** The panel, loaded the first time something is shown beside a chat. */
function PanelSlot(props: { shown: Shown; chat: string; onShow: (s: Shown) => void; onClose: () => void }) {
  const part = usePanel();
  if (!part) {
    return (
      <aside class="panel loading" aria-label="Beside the chat" aria-busy="true">
        <p class="quiet">Opening…</p>
      </aside>
    );
  }
  return <part.Panel {...props} />;
}

export function ChatPage(props: { id: string; onActivity: () => void; holdsRef: (h: { skill: string; stop: () => void }[]) => void }) {
  const [live, setLive] = useState<Live>({ events: [], streaming: new Map(), connected: false, historyEnd: 0 });
  const [error, setError] = useState<string | null>(null);
  const bottom = useRef<HTMLDivElement>(null);
  // Opened at a moment (from Activity): `?at=<seq>` is scrolled to and
  // marked, once its events are in.
  const target = useRef<number | null>(Number(new URLSearchParams(location.search).get("at")) || null);
  // Beside the chat: what is shown, and whether the owner closed the panel
  // since something was last made (then new things don't open it).
  const [shown, setShown] = useState<Shown | null>(null);
  const closed = useRef(false);
  const seen = useRef(0);
  useEffect(() => {
    setShown(null);
    closed.current = false;
    seen.current = 0;
    // Opened from ⌘K: `?artifact=<id>` shows its newest version.
    const wanted = new URLSearchParams(location.search).get("artifact");
    if (wanted) setShown({ id: wanted, version: 0 });
    return onShowBeside((chat, id) => {
      if (chat !== props.id) return;
      closed.current = false;
      setShown({ id, version: 0 });
    });
  }, [props.id]);
  useEffect(() => {
    const from = Math.max(seen.current, live.historyEnd);
    let newest: Shown | null = null;
    for (const e of live.events) {
      if (e.seq <= from || e.type !== "artifact") continue;
      changed(String(e.artifact));
      newest = { id: String(e.artifact), version: Number(e.version) };
    }
    seen.current = Math.max(from, live.events.length ? live.events[live.events.length - 1].seq : 0);
    if (newest && !closed.current) setShown(newest);
  }, [live.events.length, live.historyEnd]);
  const show = (s: Shown) => {
    closed.current = false;
    setShown(s);
  };
  useEffect(() => {
    setLive({ events: [], streaming: new Map(), connected: false, historyEnd: 0 });
    setError(null);
    const stream = new ChatStream(props.id, setLive);
    stream.start().catch((e) => setError(e instanceof Error ? e.message : String(e)));
    return () => stream.close();
  }, [props.id]);
  const folded = useMemo(() => fold(live.events), [live.events, live.events.length]);
  const running = folded.openTurn !== null || live.streaming.size > 0;
  // The sidebar shows whether a chat is working: tell it when that changes.
  useEffect(() => {
    if (live.events.length) props.onActivity();
  }, [running]);
  useEffect(() => {
    const at = target.current;
    if (at === null || !live.events.length || live.events[live.events.length - 1].seq < at) return;
    const rows = [...document.querySelectorAll<HTMLElement>(".transcript > li[data-seq]")];
    const row = rows.filter((r) => Number(r.dataset.seq) <= at).pop() ?? rows[0];
    if (!row) return;
    target.current = null;
    row.scrollIntoView({ block: "center" });
    row.classList.add("highlight");
    row.setAttribute("data-target", "");
  }, [live]);
  // Follow the newest words, unless the owner scrolled up to read.
  useEffect(() => {
    const el = bottom.current;
    if (!el || target.current !== null || document.querySelector("[data-target]")) return;
    const near = window.innerHeight + window.scrollY >= document.body.scrollHeight - 200;
    const main = el.closest(".chat-scroll");
    const inMain = main ? main.scrollHeight - main.scrollTop - main.clientHeight < 200 : near;
    if (inMain || near) el.scrollIntoView({ block: "end" });
  }, [live]);
  const answer = async (q: Question, a: "once" | "always" | "deny") => {
    await api.answer(props.id, q.ask, a);
  };
  const firstPending = folded.pending[0]?.ask ?? null;
  // Keyboard: o, a, d answer the first waiting question when the owner
  // isn't typing.
  useEffect(() => {
    const q = folded.pending[0];
    if (!q) return;
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === "TEXTAREA" || t.tagName === "INPUT" || t.tagName === "SELECT")) return;
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      const a = e.key === "o" ? "once" : e.key === "d" ? "deny" : e.key === "a" && q.always ? "always" : null;
      if (a) {
        e.preventDefault();
        void answer(q, a).catch((err) => setError(err instanceof Error ? err.message : String(err)));
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [folded.pending[0]?.ask]);
  const stopHolding = async (skill: string) => {
    await api.stopHolding(props.id, skill);
  };
  useEffect(() => {
    props.holdsRef(
      folded.holds.map((h) => ({
        skill: h.skill,
        stop: () => void stopHolding(h.skill).catch((e) => setError(e instanceof Error ? e.message : String(e))),
      })),
    );
  }, [folded.holds.map((h) => h.skill).join("\n")]);
  return (
    <div class={`chat-area${shown ? " with-panel" : ""}`}>
    <div class="chat-scroll">
    <div class="chat">
      {error && (
        <p class="error banner" role="alert">
          {error}
        </p>
      )}
      {!live.connected && live.events.length > 0 && <p class="quiet reconnecting">Reconnecting…</p>}
      <Transcript
        entries={folded.entries}
        streaming={live.streaming}
        firstPending={firstPending}
        onAnswer={answer}
        shown={shown}
        onOpenArtifact={(id, version) => show({ id, version })}
      />
      <div ref={bottom} />
      <div class="dock">
        <HoldsBar holds={folded.holds} busy={running} onStop={stopHolding} />
        <Composer
          mode={folded.mode}
          running={running}
          onSend={async (text) => {
            await api.post(props.id, text);
            props.onActivity();
          }}
          onStop={() => void api.stop(props.id)}
          onMode={(m: Mode) => void api.setMode(props.id, m).catch((e) => setError(e instanceof Error ? e.message : String(e)))}
        />
      </div>
    </div>
    </div>
    {shown && (
      <PanelSlot
        shown={shown}
        chat={props.id}
        onShow={setShown}
        onClose={() => {
          closed.current = true;
          setShown(null);
        }}
      />
    )}
    </div>
  );
}
