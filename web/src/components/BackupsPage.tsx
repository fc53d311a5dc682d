import { useEffect, useState } from "preact/hooks";
import "../pages.css";
import { type Backups } from "../api";
import { pageApi } from "../pageApi";

function size(bytes: number): string {
  if (bytes >= 1 << 30) return `${(bytes / (1 << 30)).toFixed(1)} GB`;
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MB`;
  if (bytes >= 1 << 10) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/** Settings → Backups: make one, download, restore beside, the schedule. */
export function BackupsPage() {
  const [data, setData] = useState<Backups | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [passphrase, setPassphrase] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const load = () => pageApi.backups().then(setData, (e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, []);
  // What puts keys in a file asks for the password again first.
  const act = async (what: () => Promise<string>, needsPassword: boolean) => {
    setError(null);
    setSaid(null);
    setBusy(true);
    try {
      if (needsPassword && password) await pageApi.confirmPassword(password);
      setSaid(await what());
      setPassword("");
      await load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const withKeys = passphrase.length > 0;
  return (
    <div class="page backups">
      <h1>Backups</h1>
      <p class="quiet">
        One file with your chats, artifacts, skills, settings, memories and apps. With a passphrase it is encrypted and carries
        your keys; without one it holds no keys. This computer's own key never goes in.
      </p>
      <section>
        <h2>Make one now</h2>
        <input
          type="password"
          aria-label="Passphrase (optional)"
          placeholder="Passphrase (optional, 8 characters or more)"
          autocomplete="new-password"
          value={passphrase}
          onInput={(e) => setPassphrase((e.target as HTMLInputElement).value)}
        />
        {withKeys && (
          <input
            type="password"
            aria-label="Your password"
            placeholder="Your password (a backup with your keys asks for it)"
            autocomplete="current-password"
            value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          />
        )}
        <button
          class="primary"
          disabled={busy}
          onClick={() => void act(async () => (await pageApi.makeBackup(passphrase || undefined)).says, withKeys)}
        >
          {busy ? "Backing up…" : withKeys ? "Back up, with my keys" : "Back up, without keys"}
        </button>
      </section>
      {said && <p role="status">{said}</p>}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {data && (
        <section>
          <h2>Schedule</h2>
          <label>
            Make one{" "}
            <select
              aria-label="How often"
              value={data.schedule.every}
              onChange={(e) =>
                void act(async () => {
                  const every = (e.target as HTMLSelectElement).value as Backups["schedule"]["every"];
                  await pageApi.setBackupSchedule(every, data.schedule.keep);
                  return every === "off" ? "Backups aren't made by themselves." : `A backup is made ${every} while Conch runs.`;
                }, false)
              }
            >
              <option value="off">never by itself</option>
              <option value="daily">every day</option>
              <option value="weekly">every week</option>
            </select>
          </label>{" "}
          <span class="quiet">
            keeping the newest {data.schedule.keep}; {data.schedule.passphrase ? "locked with your passphrase, with your keys" : "without keys"}.
          </span>
          {withKeys && (
            <button
              class="small"
              disabled={busy}
              onClick={() =>
                void act(async () => {
                  await pageApi.setBackupSchedule(data.schedule.every, data.schedule.keep, passphrase);
                  return "Scheduled backups now carry your keys, locked with that passphrase.";
                }, true)
              }
            >
              Lock scheduled backups with this passphrase
            </button>
          )}
        </section>
      )}
      {data && data.backups.length > 0 && (
        <section>
          <h2>Backups here</h2>
          <ul class="keys">
            {data.backups.map((b) => (
              <li key={b.name}>
                <strong>{b.name}</strong> <span class="quiet">{size(b.size)} · {b.locked ? "with your keys" : "without keys"}</span>{" "}
                <a class="small" href={`/api/backups/${encodeURIComponent(b.name)}`} download>
                  Download
                </a>{" "}
                <button
                  class="small"
                  disabled={busy}
                  onClick={() =>
                    void act(async () => {
                      const r = await pageApi.restoreBackup(b.name, b.locked ? passphrase : undefined);
                      return `${r.says} ${r.start}`;
                    }, true)
                  }
                >
                  Restore beside this Conch
                </button>
              </li>
            ))}
          </ul>
          <p class="quiet">
            A restore goes into a new folder beside this one, never into the Conch that is running. Restoring asks for your
            password; a locked backup uses the passphrase typed above.
          </p>
          {!withKeys && (
            <input
              type="password"
              aria-label="Your password"
              placeholder="Your password (restoring asks for it)"
              autocomplete="current-password"
              value={password}
              onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
            />
          )}
        </section>
      )}
    </div>
  );
}
