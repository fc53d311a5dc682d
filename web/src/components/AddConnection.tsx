// Settings → Connections → Add a connection: a program Conch starts (with
// its arguments) or an address, and its secrets typed into sealed fields
// that the page never shows again. It takes your password again, as it
// starts a program on this computer; Conch then starts it and lists its
// tools, each off until you choose (docs/apps.md).

import { useState } from "preact/hooks";
import { pageApi, type AppView } from "../pageApi";

interface Secret {
  name: string;
  value: string;
}

function toolWords(app: AppView): string {
  const s = app.status;
  if (s?.state === "connected") return `connected, with ${app.tools.length} ${app.tools.length === 1 ? "tool" : "tools"} listed below. Choose what each may do.`;
  if (s?.state === "failed") return `but it couldn't be reached: ${s.error ?? "no answer"} Conch tries again; fix what it runs, or check its secrets.`;
  return "still connecting: its tools show below once it answers.";
}

export function AddConnection(props: { onAdded: () => void }) {
  const [how, setHow] = useState<"program" | "address">("program");
  const [name, setName] = useState("");
  const [command, setCommand] = useState("");
  const [args, setArgs] = useState("");
  const [url, setUrl] = useState("");
  const [secrets, setSecrets] = useState<Secret[]>([]);
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const set = (i: number, part: Partial<Secret>) => setSecrets(secrets.map((s, n) => (n === i ? { ...s, ...part } : s)));
  const ready = name.trim() && (how === "program" ? command.trim() : url.trim()) && password;
  const add = async () => {
    setBusy(true);
    setError(null);
    setSaid(null);
    try {
      await pageApi.confirmPassword(password);
      const kept = Object.fromEntries(secrets.filter((s) => s.name.trim()).map((s) => [s.name.trim(), s.value]));
      const app = await pageApi.addApp(
        how === "program"
          ? { name: name.trim(), command: command.trim(), args: args.split("\n").map((a) => a.trim()).filter(Boolean), secrets: kept }
          : { name: name.trim(), url: url.trim(), secrets: kept },
      );
      setSaid(`Added ${app.name}: ${toolWords(app)}`);
      // The secrets are sealed now: the page forgets them.
      setSecrets([]);
      setName("");
      setCommand("");
      setArgs("");
      setUrl("");
      props.onAdded();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setPassword("");
      setBusy(false);
    }
  };
  return (
    <section class="add-connection" aria-labelledby="add-connection">
      <h2 id="add-connection">Add a connection</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (ready && !busy) void add();
        }}
      >
        <label>
          Name <input value={name} autocomplete="off" placeholder="mail" onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <fieldset>
          <legend>How Conch reaches it</legend>
          <label>
            <input type="radio" name="how" checked={how === "program"} onChange={() => setHow("program")} /> A program Conch starts
          </label>
          <label>
            <input type="radio" name="how" checked={how === "address"} onChange={() => setHow("address")} /> An address
          </label>
        </fieldset>
        {how === "program" ? (
          <>
            <label>
              Program <input value={command} autocomplete="off" placeholder="npx" onInput={(e) => setCommand((e.target as HTMLInputElement).value)} />
            </label>
            <label>
              Arguments, one a line
              <textarea rows={3} value={args} placeholder={"-y\n@modelcontextprotocol/server-everything"} onInput={(e) => setArgs((e.target as HTMLTextAreaElement).value)} />
            </label>
          </>
        ) : (
          <label>
            Address <input type="url" value={url} autocomplete="off" placeholder="https://mcp.example/mcp" onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
          </label>
        )}
        <fieldset class="secrets">
          <legend>{how === "program" ? "Secret variables (sealed, never shown again)" : "Secret headers (sealed, never shown again)"}</legend>
          {secrets.map((s, i) => (
            <div class="row" key={i}>
              <input aria-label={`Secret ${i + 1}: name`} placeholder={how === "program" ? "API_TOKEN" : "Authorization"} value={s.name} autocomplete="off" onInput={(e) => set(i, { name: (e.target as HTMLInputElement).value })} />
              <input aria-label={`Secret ${i + 1}: value`} type="password" autocomplete="new-password" value={s.value} onInput={(e) => set(i, { value: (e.target as HTMLInputElement).value })} />
              <button type="button" class="small" onClick={() => setSecrets(secrets.filter((_, n) => n !== i))}>
                Remove
              </button>
            </div>
          ))}
          <button type="button" class="small" onClick={() => setSecrets([...secrets, { name: "", value: "" }])}>
            Add a secret
          </button>
        </fieldset>
        <label>
          Your password (adding one starts a program on this computer)
          <input type="password" autocomplete="current-password" value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="primary" disabled={!ready || busy}>
          {busy ? "Starting it…" : "Add and start it"}
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {said && (
        <p class="said" role="status">
          {said}
        </p>
      )}
    </section>
  );
}
