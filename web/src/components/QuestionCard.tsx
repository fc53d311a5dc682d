import { useEffect, useRef, useState } from "preact/hooks";
import type { Question } from "../events";
import { covers, subject, wants } from "../words";

type Answer = "once" | "always" | "deny";

function answered(q: Question): string {
  if (q.ended) return q.ended === "stopped" ? "Stopped before it was answered." : "Ended when Conch restarted. Ask again.";
  const who = q.by && q.by !== "owner" ? (q.by === "mode" ? " (by the mode you picked)" : ` (by ${q.by})`) : "";
  return q.answer === "deny" ? `You said no${who}.` : q.answer === "always" ? `Allowed for the rest of this chat${who}.` : `Allowed once${who}.`;
}

/** The parts of the request that came from something the chat read, not
 *  from the owner's own words. */
function FromReading({ q }: { q: Question }) {
  const read = q.provenance.filter((p) => p.from === "read");
  const nowhere = q.provenance.filter((p) => p.from === "nowhere");
  if (!read.length && !nowhere.length) return null;
  return (
    <div class="provenance">
      {read.map((p, i) => (
        <p key={i}>
          <mark>{p.part}</mark> came from something this chat read{p.source ? ` (${p.source})` : ""}, not from you.
        </p>
      ))}
      {nowhere.map((p, i) => (
        <p key={`n${i}`} class="quiet">
          <code>{p.part}</code> isn't in anything you wrote.
        </p>
      ))}
    </div>
  );
}

export function QuestionCard(props: { q: Question; onAnswer: (a: Answer) => Promise<void>; first: boolean }) {
  const { q } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const first = useRef<HTMLButtonElement>(null);
  const pending = !q.answer && !q.ended;
  useEffect(() => {
    // Bring the card to hand unless the owner is typing.
    if (pending && props.first && (document.activeElement === document.body || document.activeElement === null)) {
      first.current?.focus();
    }
  }, [pending, props.first]);
  const answer = async (a: Answer) => {
    setBusy(true);
    setError(null);
    try {
      await props.onAnswer(a);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  const what = subject(q.action);
  const args =
    q.action?.kind === "integration" && q.input && typeof q.input === "object" ? JSON.stringify(q.input, null, 2) : null;
  return (
    <section class={`question ${pending ? "pending" : "done"}`} aria-label="A question for you" data-ask={q.ask}>
      <h3>{wants(q.action, q.tool)}</h3>
      {what && <pre class="subject">{what}</pre>}
      {args && <pre class="subject args">{args}</pre>}
      <FromReading q={q} />
      {q.note && <p class="note">{q.note}</p>}
      {q.told && <p class="told quiet">{q.told}</p>}
      <p class="ask-line">{q.question}</p>
      {pending ? (
        <div class="answers" role="group" aria-label="Answer">
          <button ref={first} class="primary" disabled={busy} onClick={() => answer("once")} title="o">
            Once
          </button>
          {q.always && (
            <button disabled={busy} onClick={() => answer("always")} title="a">
              Always allow <span class="quiet">for the rest of this chat</span>
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
      {q.always && pending && (
        <p class="quiet covers">Always allow covers {q.always.map(covers).join("; ")}, for the rest of this chat.</p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
