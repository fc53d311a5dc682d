import { useEffect, useRef, useState } from "preact/hooks";
import { api, type ActivityRow, type ReviewTotals } from "../api";
import { pageApi, type Spending } from "../pageApi";
import { money } from "../words";
import { navigate } from "../router";
import "../pages.css";

const FILTERS: { id: string; label: string; kinds?: string[]; waiting?: boolean }[] = [
  { id: "all", label: "Everything" },
  { id: "command", label: "Commands", kinds: ["command"] },
  { id: "file", label: "Files", kinds: ["file"] },
  { id: "page", label: "Pages", kinds: ["page"] },
  { id: "app", label: "Connections", kinds: ["app"] },
  { id: "made", label: "Made", kinds: ["made"] },
  { id: "question", label: "Questions", kinds: ["question"] },
  { id: "waiting", label: "Still waiting", waiting: true },
  { id: "read", label: "Read from outside", kinds: ["read"] },
  { id: "skill", label: "Skills", kinds: ["skill"] },
  { id: "routine", label: "Routines", kinds: ["routine"] },
  { id: "security", label: "Security", kinds: ["security"] },
  { id: "memory", label: "Memories", kinds: ["memory"] },
];

function day(iso: string): string {
  const d = new Date(iso);
  const today = new Date();
  const yesterday = new Date(Date.now() - 86400000);
  if (d.toDateString() === today.toDateString()) return "Today";
  if (d.toDateString() === yesterday.toDateString()) return "Yesterday";
  return d.toLocaleDateString([], { weekday: "long", month: "long", day: "numeric", year: "numeric" });
}

function Row({ r, onAnswered }: { r: ActivityRow; onAnswered: () => void }) {
  const [error, setError] = useState<string | null>(null);
  // A security row (someone trying passwords) isn't a chat's: it leads to
  // the checkup.
  const href = r.kind === "security" ? "/settings/security" : `/chats/${r.chat}?at=${r.seq}`;
  const open = (e: Event) => {
    e.preventDefault();
    navigate(href);
  };
  const decide = async (keep: boolean) => {
    setError(null);
    try {
      if (keep) await pageApi.keepMemory(r.memory ?? "");
      else await pageApi.forgetMemory(r.memory ?? "");
      onAnswered();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const answer = async (a: "once" | "deny") => {
    setError(null);
    try {
      await api.answer(r.chat, r.ask ?? "", a);
      onAnswered();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <li class={`activity-row kind-${r.kind}${r.ask || r.memory ? " waiting" : ""}`} data-cursor={r.cursor}>
      <span class="time quiet">{new Date(r.at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}</span>
      <span class="badge">{r.kind}</span>
      <span class="says">
        {r.says}
        {r.state && <span class="quiet"> · {r.state}</span>}
      </span>
      {r.chatDeleted ? (
        <a
          class="chat-link quiet"
          href="/settings/trash"
          onClick={(e) => {
            e.preventDefault();
            navigate("/settings/trash");
          }}
        >
          {r.chatTitle || "a chat"} (chat deleted)
        </a>
      ) : (
        <a class="chat-link" href={href} onClick={open}>
          {r.kind === "security" ? "Security" : r.chatTitle || "a chat"}
        </a>
      )}
      {r.ask && (
        <span class="answers">
          <button class="small primary" onClick={() => answer("once")}>
            Once
          </button>
          <button class="small danger" onClick={() => answer("deny")}>
            Deny
          </button>
        </span>
      )}
      {r.memory && (
        <span class="answers">
          <span class="quiet">Keep this memory?</span>
          <button class="small primary" onClick={() => decide(true)}>
            Keep
          </button>
          <button class="small danger" onClick={() => decide(false)}>
            Forget
          </button>
        </span>
      )}
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </li>
  );
}

export function ActivityPage({ waiting }: { waiting?: boolean } = {}) {
  const [filter, setFilter] = useState(waiting ? "waiting" : "all");
  const [rows, setRows] = useState<ActivityRow[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [totals, setTotals] = useState<ReviewTotals | null>(null);
  const [spent, setSpent] = useState<Spending | null>(null);
  useEffect(() => void pageApi.spending().then(setSpent, () => {}), []);
  const sentinel = useRef<HTMLDivElement>(null);
  const loading = useRef(false);
  const f = FILTERS.find((x) => x.id === filter) ?? FILTERS[0];

  const load = async (before: string | null, replace: boolean) => {
    if (loading.current) return;
    loading.current = true;
    try {
      const page = await pageApi.activity({ before: before ?? undefined, kinds: f.kinds, waiting: f.waiting });
      setRows((old) => (replace ? page.rows : [...old, ...page.rows]));
      if (page.totals) setTotals(page.totals);
      setNext(page.next);
      setDone(page.next === null);
      setError(null);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      loading.current = false;
    }
  };
  // The newest page again, now and then: new rows come in at the top.
  const refreshTop = async () => {
    try {
      const page = await pageApi.activity({ kinds: f.kinds, waiting: f.waiting });
      setRows((old) => {
        // Questions answered elsewhere leave the waiting list.
        if (f.waiting) return page.rows;
        const byCursor = new Map(page.rows.map((r) => [r.cursor, r]));
        const known = new Set(old.map((o) => o.cursor));
        const fresh = page.rows.filter((r) => !known.has(r.cursor));
        return [...fresh, ...old.map((o) => byCursor.get(o.cursor) ?? o)];
      });
    } catch {
      /* the next look will do */
    }
  };
  useEffect(() => {
    setRows([]);
    setDone(false);
    void load(null, true);
    const t = setInterval(refreshTop, 4000);
    return () => clearInterval(t);
  }, [filter]);
  useEffect(() => {
    const el = sentinel.current;
    if (!el) return;
    const o = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && next && !done) void load(next, false);
    });
    o.observe(el);
    return () => o.disconnect();
  }, [next, done]);

  const items = [];
  let lastDay = "";
  for (const r of rows) {
    const d = day(r.at);
    if (d !== lastDay) {
      items.push(
        <li class="day" key={`d${d}`}>
          <h2>{d}</h2>
        </li>,
      );
      lastDay = d;
    }
    items.push(<Row key={r.cursor} r={r} onAnswered={() => void refreshTop()} />);
  }
  return (
    <div class="page activity">
      <h1>Activity</h1>
      <p class="quiet">Everything the assistant did, in every chat, newest first. Looking at files isn't listed: doing is.</p>
      {spent && (spent.today > 0 || spent.day !== null) && (
        <p class="quiet spent-today">
          Spent on models today: {money(spent.today, spent.currency)}
          {spent.day !== null ? ` of the day's cap, ${money(spent.day, spent.currency)}` : ""}.
        </p>
      )}
      {totals && totals.reviewAllowed + totals.reviewRejected + totals.reviewAsked + totals.reviewExhausted > 0 && (
        <p class="quiet review-totals">
          Auto mode's reviewer: {totals.reviewAllowed} allowed, {totals.reviewRejected} turned down, {totals.reviewAsked} left to you,{" "}
          {totals.reviewExhausted} after its budget ran out.
        </p>
      )}
      <div class="chips" role="group" aria-label="Show">
        {FILTERS.map((x) => (
          <button key={x.id} class={`chip${x.id === filter ? " on" : ""}`} aria-pressed={x.id === filter} onClick={() => setFilter(x.id)}>
            {x.label}
          </button>
        ))}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ul class="activity-list">
        {items}
      </ul>
      {rows.length === 0 && done && <p class="quiet">Nothing here yet.</p>}
      <div ref={sentinel} class="sentinel" />
      {next && !done && (
        <button onClick={() => void load(next, false)} class="more">
          Older
        </button>
      )}
    </div>
  );
}
