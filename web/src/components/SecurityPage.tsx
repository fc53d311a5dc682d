import { useEffect, useState } from "preact/hooks";
import { type Check, type Repair, type Safety } from "../api";
import { pageApi } from "../pageApi";
import { navigate } from "../router";
import "../pages.css";

const PREFS: { key: keyof Safety; name: string; says: string; off: string }[] = [
  {
    key: "checkAfterReading",
    name: "Check before acting on what it read",
    says: "After it reads a page, a file from outside or someone else's words, it asks you before running commands or sending anything.",
    off: "A page it reads could then steer a command or a request without you being asked.",
  },
  {
    key: "sealedCommands",
    name: "Seal commands",
    says: "Commands run in a box: the work folder, no keys, no network unless it asks.",
    off: "Every command would then run with your full access: your files, your keys, the network.",
  },
  {
    key: "checkMemories",
    name: "Check what it remembers",
    says: "A memory that looks planted by something it read is held and asked about.",
    off: "A memory planted by something it read would then be used without a question.",
  },
  {
    key: "enginesInBox",
    name: "Run engines in the box",
    says: "Claude Code and Codex run in the same box as commands: their own searches, reads and edits can't reach your keys or Conch's folder. Where the box can't hold an engine (a computer without the box, or Seal commands off), its chats are refused.",
    off: "Claude Code and Codex would then run with your full access where the box can't hold them: their own searches, reads and edits could reach your keys and Conch's folder.",
  },
];

export function SecurityPage() {
  const [safety, setSafety] = useState<Safety | null>(null);
  const [checks, setChecks] = useState<Check[]>([]);
  const [asking, setAsking] = useState<keyof Safety | null>(null);
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [repair, setRepair] = useState<Repair | null>(null);
  const [repairing, setRepairing] = useState(false);
  const repairEverything = async () => {
    setError(null);
    setRepairing(true);
    try {
      setRepair(await pageApi.repair());
      await load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setRepairing(false);
    }
  };
  const load = async () => {
    try {
      setSafety(await pageApi.safety());
      setChecks((await pageApi.checkup()).checks);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  useEffect(() => {
    void load();
  }, []);
  const turn = async (key: keyof Safety, on: boolean) => {
    setError(null);
    try {
      await pageApi.setSafety({ [key]: on });
      setAsking(null);
      setPassword("");
      await load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const offWithPassword = async (key: keyof Safety) => {
    setError(null);
    try {
      await pageApi.confirmPassword(password);
      await turn(key, false);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div class="page security">
      <h1>Security</h1>
      <section>
        <h2>Safety</h2>
        {safety &&
          PREFS.map((p) => (
            <div class="pref" key={p.key}>
              <label>
                <input
                  type="checkbox"
                  role="switch"
                  aria-label={p.name}
                  checked={safety[p.key]}
                  onChange={(e) => {
                    const on = (e.target as HTMLInputElement).checked;
                    if (on) void turn(p.key, true);
                    else {
                      (e.target as HTMLInputElement).checked = true;
                      setAsking(p.key);
                    }
                  }}
                />{" "}
                <strong>{p.name}</strong>
              </label>
              <p class="quiet">{p.says}</p>
              {asking === p.key && (
                <form
                  class="confirm"
                  onSubmit={(e) => {
                    e.preventDefault();
                    void offWithPassword(p.key);
                  }}
                >
                  <p>
                    {p.off} To turn it off, enter your password.
                  </p>
                  <input
                    type="password"
                    aria-label="Your password"
                    autocomplete="current-password"
                    autoFocus
                    value={password}
                    onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
                  />
                  <button type="submit" class="danger" disabled={!password}>
                    Turn it off
                  </button>
                  <button type="button" onClick={() => setAsking(null)}>
                    Keep it on
                  </button>
                </form>
              )}
            </div>
          ))}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </section>
      <section class="repair">
        <h2>Repair everything</h2>
        <p class="quiet">
          Runs every check's fix at once: permissions, keys in the clear, damaged artifacts, cut-off logs, Safety switches
          (with a recent password), leftovers of a Conch that stopped. A line a computer administrator must type is shown, never
          run.
        </p>
        <button class="primary" disabled={repairing} onClick={() => void repairEverything()}>
          {repairing ? "Repairing…" : "Repair everything"}
        </button>
        {repair && (
          <ul class="checks" aria-live="polite">
            {repair.items.length === 0 || (repair.repaired === 0 && repair.needsYou === 0 && repair.found === 0) ? (
              <li class="ok">Nothing needed repair.</li>
            ) : null}
            {repair.items.map((i, n) => (
                <li key={`${i.id}-${n}`} class={i.state === "fixed" || i.state === "fine" ? "ok" : "needs"} data-repair={i.id}>
                  <span class="mark" aria-hidden="true">
                    {i.state === "fixed" || i.state === "fine" ? "✓" : "!"}
                  </span>{" "}
                  {i.says}
                  {i.line && <pre>{i.line}</pre>}
                </li>
              ))}
          </ul>
        )}
      </section>
      <section>
        <h2>Checkup</h2>
        <ul class="checks">
          {checks.map((c) => (
            <li key={c.id} class={c.ok ? "ok" : "needs"} data-check={c.id}>
              <span class="mark" aria-hidden="true">
                {c.ok ? "✓" : "!"}
              </span>{" "}
              {c.says}
              {!c.ok && c.fix?.kind === "turn-on" && (
                <button class="small primary" onClick={() => void turn((c.fix as { setting: keyof Safety }).setting, true)}>
                  Turn it back on
                </button>
              )}
              {!c.ok && c.fix?.kind === "command" && <pre>{c.fix.line}</pre>}
              {!c.ok && c.fix?.kind === "advice" && <p class="quiet">{c.fix.says}</p>}
              {!c.ok && c.fix?.kind === "memories" && (
                <button class="small primary" onClick={() => navigate("/memories")}>
                  Open Memories
                </button>
              )}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
