// Settings → Models → Spending: the caps (per day, per chat, per routine a
// day) in the owner's currency, and each provider's prices or "No cap".
// The same as `conch providers cap` and `conch providers price`.

import { useEffect, useState } from "preact/hooks";
import { pageApi, type Spending } from "../pageApi";
import { money } from "../words";


const num = (v: string): number | undefined => (v.trim() === "" ? undefined : Number(v));

function PriceRow(props: { p: Spending["providers"][number]; currency: string; onSaved: (s: Spending) => void; onError: (e: unknown) => void }) {
  const { p } = props;
  const [input, setInput] = useState(p.prices ? String(p.prices.input) : "");
  const [output, setOutput] = useState(p.prices ? String(p.prices.output) : "");
  const id = `price-${p.name}`;
  const shown = p.used
    ? `${money(p.used.input, p.prices ? props.currency : "USD")} in, ${money(p.used.output, p.prices ? props.currency : "USD")} out per million tokens${p.prices ? "" : " (the list price)"}`
    : "Its price isn't known: under a cap it isn't sent to.";
  return (
    <li class="price-row">
      <strong>{p.name}</strong> <span class="quiet">{p.model}</span>
      <p class="quiet">{shown}</p>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          const i = num(input);
          const o = num(output);
          pageApi
            .setPrices(p.name, { prices: i === undefined || o === undefined ? null : { input: i, output: o } })
            .then(props.onSaved, props.onError);
        }}
      >
        <label>
          Sent, per million tokens
          <input id={`${id}-in`} inputMode="decimal" value={input} placeholder={p.known ? String(p.known.input) : ""} onInput={(e) => setInput((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Written, per million tokens
          <input id={`${id}-out`} inputMode="decimal" value={output} placeholder={p.known ? String(p.known.output) : ""} onInput={(e) => setOutput((e.target as HTMLInputElement).value)} />
        </label>
        <button class="small" type="submit">
          Save prices
        </button>
      </form>
      <label class="check">
        <input type="checkbox" checked={p.noCap} onChange={(e) => pageApi.setPrices(p.name, { noCap: (e.target as HTMLInputElement).checked }).then(props.onSaved, props.onError)} /> No cap for
        this provider
      </label>
    </li>
  );
}

export function SpendingSettings() {
  const [s, setS] = useState<Spending | null>(null);
  const [currency, setCurrency] = useState("USD");
  const [day, setDay] = useState("");
  const [chat, setChat] = useState("");
  const [routine, setRoutine] = useState("");
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fail = (e: unknown) => setError(e instanceof Error ? e.message : String(e));
  const shown = (x: Spending) => {
    setS(x);
    setCurrency(x.currency);
    setDay(x.day === null ? "" : String(x.day));
    setChat(x.chat === null ? "" : String(x.chat));
    setRoutine(x.routine === null ? "" : String(x.routine));
  };
  useEffect(() => void pageApi.spending().then(shown, fail), []);
  if (!s) return null;
  return (
    <section class="spending" aria-labelledby="spending-title">
      <h2 id="spending-title">Spending</h2>
      <p class="quiet">
        Spent today: {money(s.today, s.currency)}. Before each request Conch estimates what it will cost; one that would pass a cap isn't sent, and
        the chat says so. Leave a cap empty for none.
      </p>
      <form
        class="caps"
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          pageApi
            .setCaps({ currency: currency.trim().toUpperCase(), day: num(day), chat: num(chat), routine: num(routine) })
            .then((x) => {
              shown(x);
              setSaid("Saved. The caps hold from the next request.");
            }, fail);
        }}
      >
        <label>
          Currency
          <input value={currency} maxLength={3} onInput={(e) => setCurrency((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          A day
          <input inputMode="decimal" value={day} onInput={(e) => setDay((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          A chat
          <input inputMode="decimal" value={chat} onInput={(e) => setChat((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          A routine, a day
          <input inputMode="decimal" value={routine} onInput={(e) => setRoutine((e.target as HTMLInputElement).value)} />
        </label>
        <button class="primary" type="submit">
          Save caps
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {said && (
        <p class="quiet" role="status">
          {said}
        </p>
      )}
      {s.providers.length > 0 && (
        <ul class="prices">
          {s.providers.map((p) => (
            <PriceRow key={p.name} p={p} currency={s.currency} onSaved={shown} onError={fail} />
          ))}
        </ul>
      )}
    </section>
  );
}
