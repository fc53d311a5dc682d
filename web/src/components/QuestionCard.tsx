import { useEffect, useRef, useState } from "preact/hooks";
import type { Provenance, Question } from "../events";
import { covers, narrowCovers, subject, wants } from "../words";

type Answer = "once" | "always" | "deny";
export type Covers = "tool" | "program";

/** Where an answer came from, when it wasn't this page: a chat app, an
 *  access key, the mode. */
function answeredWhere(by: string | undefined | null): string {
  if (!by || by === "owner") return "";
  if (by === "mode") return " (by the mode you picked)";
  const [who, rest] = [by.slice(0, by.indexOf(":")), by.slice(by.indexOf(":") + 1)];
  if (who === "owner" && rest) return ` (in ${rest[0].toUpperCase()}${rest.slice(1)})`;
  if (who === "key" && rest) return ` (with the access key “${rest}”)`;
  return ` (by ${by})`;
}

function answered(q: Question): string {
  if (q.ended) return q.ended === "stopped" ? "Stopped before it was answered." : "Ended when Conch restarted. Ask again.";
  const who = answeredWhere(q.by);
  if (q.answer === "deny") return `You said no${who}.`;
  if (q.answer !== "always") return `Allowed once${who}.`;
  const what = q.narrowed ? (q.narrow ? narrowCovers(q.narrow) : null) : q.always ? covers(q.always) : null;
  if (!what) return `Allowed once${who}.`;
  return q.narrowed ? `Allowed ${what} for the rest of this chat${who}.` : `Allowed ${what} for the rest of this chat${who}.`;
}

/** `text` with each of `parts` marked where it appears (longest first, no
 *  overlaps): the composed parts, highlighted in the command itself. */
function Marked({ text, parts }: { text: string; parts: Provenance[] }) {
  const spans: { from: number; to: number; p: Provenance }[] = [];
  for (const p of [...parts].sort((a, b) => b.part.length - a.part.length)) {
    if (!p.part) continue;
    let at = text.indexOf(p.part);
    while (at >= 0) {
      const to = at + p.part.length;
      if (!spans.some((s) => at < s.to && to > s.from)) spans.push({ from: at, to, p });
      at = text.indexOf(p.part, to);
    }
  }
  spans.sort((a, b) => a.from - b.from);
  const out = [];
  let i = 0;
  for (const s of spans) {
    if (s.from > i) out.push(text.slice(i, s.from));
    out.push(
      <mark key={s.from} class={s.p.from} title={s.p.from === "read" ? `From ${s.p.source ?? "something this chat read"}` : "Not in anything you wrote"}>
        {text.slice(s.from, s.to)}
      </mark>,
    );
    i = s.to;
  }
  out.push(text.slice(i));
  return <>{out}</>;
}

/** Where a write goes, first, with where each of its values came from. */
function GoesTo({ q }: { q: Question }) {
  const to = q.provenance.filter((p) => p.kind === "destination");
  if (!to.length) return null;
  const said = (p: Provenance) =>
    p.from === "owner" ? "you wrote it" : p.from === "read" ? `from ${p.source ?? "something this chat read"}, not from you` : "not in anything you wrote or it read";
  return (
    <div class="goes-to">
      <p>Where it goes:</p>
      <ul>
        {to.map((p) => (
          <li key={p.part}>
            <mark class={p.from}>{p.part}</mark>: {said(p)}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Where the composed parts came from, one line per source. */
function FromWhere({ q }: { q: Question }) {
  const bySource = new Map<string, string[]>();
  for (const p of q.provenance) {
    if (p.from === "owner" || p.kind === "destination") continue;
    const key = p.from === "read" ? (p.source ?? "something this chat read") : "";
    const list = bySource.get(key) ?? [];
    if (!list.includes(p.part)) list.push(p.part);
    bySource.set(key, list);
  }
  if (!bySource.size) return null;
  return (
    <div class="provenance">
      {[...bySource.entries()].sort((a, b) => Number(!a[0]) - Number(!b[0])).map(([source, parts]) => (
        <p key={source || "nowhere"} class={source ? "" : "quiet"}>
          {source ? `These parts came from ${source}, not from you: ` : "These parts aren't in anything you wrote or it read: "}
          {parts.map((part, i) => (
            <span key={part}>
              {i > 0 && ", "}
              <mark class={source ? "read" : "nowhere"}>{part}</mark>
            </span>
          ))}
        </p>
      ))}
    </div>
  );
}

/** What the card says besides the headline, only where the headline
 *  doesn't: a command outside the box, a file that runs later. */
function extra(q: Question): string | null {
  const a = q.action;
  if (a?.kind === "command" && (a.unsealed || a.leaves_box)) return "It would run with your full access, outside the box.";
  if (a?.kind === "file-change") {
    const later = q.question.match(/It's (.+): what is written there runs later by itself\./);
    if (later) return `It's ${later[1]}: what is written there runs later by itself.`;
    return a.inside ? null : "It's outside the work folder.";
  }
  if (!a || a.kind === "integration" || a.kind === "use-skill" || a.kind === "artifact") return q.question;
  return null;
}

export function QuestionCard(props: { q: Question; onAnswer: (a: Answer, covers?: Covers) => Promise<void>; first: boolean }) {
  const { q } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const first = useRef<HTMLButtonElement>(null);
  const card = useRef<HTMLElement>(null);
  /** Where focus was before the card took it: it goes back there. */
  const before = useRef<Element | null>(null);
  const pending = !q.answer && !q.ended;
  useEffect(() => {
    // Bring the card to hand unless the owner is typing.
    if (pending && props.first && (document.activeElement === document.body || document.activeElement === null)) {
      before.current = document.activeElement;
      first.current?.focus();
    }
  }, [pending, props.first]);
  const was = useRef(pending);
  useEffect(() => {
    const answeredNow = was.current && !pending;
    was.current = pending;
    if (!answeredNow) return;
    // Answered (here, by a key, or elsewhere): focus leaves the card for
    // where it was, or the message box.
    const inCard = card.current?.contains(document.activeElement);
    if (inCard || document.activeElement === document.body) {
      const back = before.current;
      if (back && back !== document.body && document.contains(back)) (back as HTMLElement).focus();
      else document.querySelector<HTMLElement>("textarea[aria-label=Message]")?.focus();
    }
  }, [pending]);
  const answer = async (a: Answer, c?: Covers) => {
    setBusy(true);
    setError(null);
    try {
      await props.onAnswer(a, c);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  const what = subject(q.action);
  const args =
    q.action?.kind === "integration" && q.input && typeof q.input === "object" ? JSON.stringify(q.input, null, 2) : null;
  const composed = q.provenance.filter((p) => p.from !== "owner");
  const inline = q.action?.kind === "command" && what && !what.includes("\n") && what.length <= 120;
  const narrow = q.narrow ? narrowCovers(q.narrow) : null;
  const more = extra(q);
  return (
    <section ref={card} class={`question ${pending ? "pending" : "done"}`} aria-label="A question for you" data-ask={q.ask}>
      <h2 class="ask-title">
        {wants(q.action, q.tool)}
        {inline && (
          <>
            {" "}
            <code class="subject">
              <Marked text={what} parts={composed} />
            </code>
          </>
        )}
      </h2>
      {what && !inline && (
        <pre class="subject">
          <Marked text={what} parts={composed} />
        </pre>
      )}
      <GoesTo q={q} />
      {args && (
        <pre class="subject args">
          <Marked text={args} parts={composed.filter((p) => p.kind === "identifier")} />
        </pre>
      )}
      <FromWhere q={q} />
      {q.note && <p class="note">{q.note}</p>}
      {q.told && <p class="told quiet">{q.told}</p>}
      {more && <p class="ask-line">{more}</p>}
      {pending ? (
        <div class="answers" role="group" aria-label="Answer">
          <button ref={first} class="primary" disabled={busy} onClick={() => answer("once")} title="o">
            Once
          </button>
          {q.always && narrow && (
            <button class="narrow" disabled={busy} onClick={() => answer("always", "program")} title="a">
              Always allow <code>{narrow}</code> in this chat
            </button>
          )}
          {q.always && (
            <button class="wide" disabled={busy} onClick={() => answer("always", "tool")} title={narrow ? undefined : "a"}>
              Always allow: {covers(q.always)}, for the rest of this chat
            </button>
          )}
          <button class="danger" disabled={busy} onClick={() => answer("deny")} title="d">
            Deny
          </button>
          <span class="quiet keys">
            Keys: o{q.always ? ", a" : ""}, d
          </span>
        </div>
      ) : (
        <p class="answered quiet">{answered(q)}</p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
