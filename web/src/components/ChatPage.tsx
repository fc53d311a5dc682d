import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, type ChatInfo, type Mode, type Provider } from "../api";
import { changed, onShowBeside } from "../artifacts/cache";
import { lazyPart } from "../artifacts/lazy";
import { fold, type HoldLine, type Question, type Entry } from "../events";
import { ChatStream, type Live } from "../stream";
import { ChatHead } from "./ChatHead";
import { Working } from "./Working";
import { Composer } from "./Composer";
import type { Covers } from "./QuestionCard";
import { latestBrowsing } from "../browsing";
import { Starters } from "./Starters";
import { Transcript } from "./Transcript";

/** What the panel beside the chat shows. */
export interface Shown {
  id: string;
  version: number;
}

const usePanel = lazyPart(() => import("../artifacts/Panel"));
const useHolds = lazyPart(() => import("./HoldsBar"));
const useBrowser = lazyPart(() => import("./BrowserPanel"));

/** The Browser panel, loaded the first time it is opened. */
function BrowserSlot(props: { chat: string; entries: Entry[]; onClose: () => void }) {
  const part = useBrowser();
  return part ? <part.BrowserPanel {...props} /> : null;
}

/** The holds bar, loaded the first time a chat is held to a skill. */
function Holds(props: { holds: HoldLine[]; busy: boolean; onStop: (skill: string) => Promise<void> }) {
  const part = useHolds();
  return part ? <part.HoldsBar {...props} /> : null;
}

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

/** Events after which what the chat is (its name, model) is read again. */
const ABOUT = new Set(["chat.renamed", "chat.archived", "model.changed", "turn.ended", "permission.answered", "grant.revoked"]);

export function ChatPage(props: {
  id: string;
  onActivity: () => void;
  holdsRef: (h: { skill: string; stop: () => void }[]) => void;
  /** The chat was deleted or archived: the shell moves on. */
  onGone: (how: "deleted" | "archived") => void;
  /** The chat's title, for the shell's top bar and the tab. */
  onTitle: (title: string | null) => void;
}) {
  const [live, setLive] = useState<Live>({ events: [], streaming: new Map(), connected: false, historyEnd: 0 });
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<ChatInfo | null>(null);
  // Null until read: the picker isn't drawn before it can say what is true.
  const [providers, setProviders] = useState<Provider[] | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  // Following the newest words, unless the owner scrolled up to read.
  const following = useRef(true);
  // Opened at a moment (from Activity): `?at=<seq>` is scrolled to and
  // marked, once its events are in.
  const target = useRef<number | null>(Number(new URLSearchParams(location.search).get("at")) || null);
  // Beside the chat: what is shown, and whether the owner closed the panel
  // since something was last made (then new things don't open it).
  const [shown, setShownRaw] = useState<Shown | null>(null);
  // The Browser panel: one of the two panels at a time.
  const [browsing, setBrowsing] = useState(false);
  const setShown = (s: Shown | null) => {
    if (s) setBrowsing(false);
    setShownRaw(s);
  };
  const closed = useRef(false);
  const seen = useRef(0);
  const fail = (e: unknown) => setError(e instanceof Error ? e.message : String(e));
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
    setInfo(null);
    following.current = true;
    const stream = new ChatStream(props.id, setLive);
    stream.start().catch(fail);
    return () => stream.close();
  }, [props.id]);
  const folded = useMemo(() => fold(live.events), [live.events, live.events.length]);
  // What the chat is: read again when its name or model may have changed.
  const aboutKey = live.events.filter((e) => ABOUT.has(e.type)).length + (folded.lastOwner ? 1 : 0);
  useEffect(() => {
    api.chat(props.id).then(setInfo, () => undefined);
    api.providers().then((p) => setProviders(p.providers), () => undefined);
  }, [props.id, aboutKey]);
  const title = info?.title ?? null;
  useEffect(() => props.onTitle(title), [title]);
  const running = folded.openTurn !== null || live.streaming.size > 0;
  // The sidebar shows whether a chat is working or needs you: tell it when
  // that changes.
  useEffect(() => {
    if (live.events.length) props.onActivity();
  }, [running, folded.pending.length]);
  useEffect(() => {
    const at = target.current;
    if (at === null || !live.events.length || live.events[live.events.length - 1].seq < at) return;
    const rows = [...document.querySelectorAll<HTMLElement>(".transcript > li[data-seq]")];
    const row = rows.filter((r) => Number(r.dataset.seq) <= at).pop() ?? rows[0];
    if (!row) return;
    target.current = null;
    following.current = false;
    row.scrollIntoView({ block: "center" });
    row.classList.add("highlight");
    row.setAttribute("data-target", "");
  }, [live]);
  // The newest words and a waiting card are in view: the composer sits
  // below the scrolling part, never over it.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || target.current !== null || !following.current) return;
    el.scrollTop = el.scrollHeight;
  }, [live, shown]);
  const firstPending = folded.pending[0]?.ask ?? null;
  useEffect(() => {
    if (!firstPending) return;
    const card = document.querySelector<HTMLElement>(`[data-ask="${CSS.escape(firstPending)}"]`);
    card?.scrollIntoView({ block: "nearest" });
  }, [firstPending]);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    // A resize (a phone's keyboard, the panel) keeps the newest in view.
    const ro = new ResizeObserver(() => {
      if (following.current) el.scrollTop = el.scrollHeight;
    });
    ro.observe(el);
    return () => {
      el.removeEventListener("scroll", onScroll);
      ro.disconnect();
    };
  }, []);
  const answer = async (q: Question, a: "once" | "always" | "deny", covers?: Covers) => {
    await api.answer(props.id, q.ask, a, covers);
  };
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
        // `a` takes the narrowest "always" the card offers, never the widest.
        void answer(q, a, a === "always" ? (q.narrow ? "program" : "tool") : undefined).catch(fail);
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
        stop: () => void stopHolding(h.skill).catch(fail),
      })),
    );
  }, [folded.holds.map((h) => h.skill).join("\n")]);
  const others = live.events.some((e) => e.type === "message" && e.from === "person");
  const canRetry = !running && (folded.lastEnd === "error" || folded.lastEnd === "interrupted" || folded.lastEnd === "stopped") && folded.lastOwner !== null;
  return (
    <div class={`chat-area${shown || browsing ? " with-panel" : ""}`}>
      <div class="chat-column">
        <ChatHead id={props.id} info={info} onChanged={() => api.chat(props.id).then(setInfo, () => undefined)} onGone={props.onGone}
          onError={fail}
          onBrowser={
            latestBrowsing(folded.entries).page
              ? () => {
                  setShownRaw(null);
                  setBrowsing(true);
                }
              : undefined
          }
        />
        <div class="chat-scroll" ref={scroller}>
          <div class="chat">
            {error && (
              <p class="error banner" role="alert">
                {error}
              </p>
            )}
            {!live.connected && live.events.length > 0 && <p class="quiet reconnecting">Reconnecting…</p>}
            <Transcript
              chat={props.id}
              entries={folded.entries}
              streaming={live.streaming}
              firstPending={firstPending}
              onAnswer={answer}
              shown={shown}
              onOpenArtifact={(id, version) => show({ id, version })}
              lastOwner={running ? null : folded.lastOwner}
              canRetry={canRetry}
              canRegenerate={!running && !canRetry && folded.lastEnd !== null && folded.lastOwner !== null}
              onRegenerate={() => api.regenerate(props.id).then(() => props.onActivity(), fail)}
              others={others}
              onRetry={() => api.retry(props.id).then(() => props.onActivity(), fail)}
              onUndo={(target) => api.undo(props.id, target).then(() => props.onActivity(), fail)}
              onResend={async (text, replaces) => {
                following.current = true;
                await api.resend(props.id, text, replaces);
                props.onActivity();
                setTimeout(() => document.querySelector<HTMLElement>("textarea[aria-label=Message]")?.focus(), 0);
              }}
            />
            {folded.entries.length === 0 && live.historyEnd > 0 && !running && (
              <Starters
                noModel={info !== null && !info.provider && (info.engine ?? "mock") === "mock"}
                onPick={(text) => {
                  following.current = true;
                  void api.post(props.id, text).then(() => props.onActivity(), fail);
                }}
              />
            )}
            <Working openTurn={folded.openTurn} entries={folded.entries} streaming={live.streaming.size > 0} waiting={folded.pending.length > 0} />
          </div>
        </div>
        <div class="dock">
          {folded.holds.length > 0 && <Holds holds={folded.holds} busy={running} onStop={stopHolding} />}
          <Composer
            mode={folded.mode}
            running={running}
            focus={live.historyEnd > 0 && !firstPending && target.current === null}
            onSend={async (text) => {
              following.current = true;
              await api.post(props.id, text);
              props.onActivity();
            }}
            onStop={() => void api.stop(props.id)}
            onMode={(m: Mode) => void api.setMode(props.id, m).catch(fail)}
            grants={info?.grants ?? []}
            onRevoke={async (key) => {
              await api.revokeGrant(props.id, key);
              setInfo(await api.chat(props.id));
            }}
            onLeave={() => {
              // Escape: the card's keys work again; its first button has focus.
              if (firstPending) document.querySelector<HTMLElement>(`[data-ask="${CSS.escape(firstPending)}"] .answers button`)?.focus();
            }}
            models={
              info && providers
                ? {
                    providers,
                    current: info.provider ?? null,
                    engine: info.engine ?? "mock",
                    onPick: (p) => void api.pickModel(props.id, p).then(() => api.chat(props.id).then(setInfo), fail),
                  }
                : undefined
            }
          />
        </div>
      </div>
      {browsing && !shown && <BrowserSlot chat={props.id} entries={folded.entries} onClose={() => setBrowsing(false)} />}
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
