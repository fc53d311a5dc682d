import { useEffect, useState } from "preact/hooks";
import { type AccessKey } from "../api";
import { pageApi } from "../pageApi";
import { navigate } from "../router";
import { ModelsLink } from "./ModelsLink";
import { NotifySetting } from "./NotifySetting";
import "../pages.css";
import { ChatAppsSettings } from "./ChatAppsSettings";

export function SettingsPage({ onSignOut }: { onSignOut: () => void }) {
  const [keys, setKeys] = useState<AccessKey[] | null>(null);
  const [name, setName] = useState("");
  const [made, setMade] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => pageApi.keys().then(setKeys, (e) => setError(e.message));
  useEffect(() => {
    void load();
  }, []);
  return (
    <div class="page settings">
      <h1>Settings</h1>
      <section>
        <h2>Security</h2>
        <p>
          <a
            href="/settings/security"
            onClick={(e) => {
              e.preventDefault();
              navigate("/settings/security");
            }}
          >
            Safety and the security checkup
          </a>
        </p>
        <p>
          <a
            href="/settings/passwords"
            onClick={(e) => {
              e.preventDefault();
              navigate("/settings/passwords");
            }}
          >
            Passwords: every key Conch keeps
          </a>
        </p>
        <p>
          <a
            href="/settings/backups"
            onClick={(e) => {
              e.preventDefault();
              navigate("/settings/backups");
            }}
          >
            Backups
          </a>
        </p>
        <p>
          <a
            href="/settings/trash"
            onClick={(e) => {
              e.preventDefault();
              navigate("/settings/trash");
            }}
          >
            Trash: deleted chats, kept 30 days
          </a>
        </p>
      </section>
      <ModelsLink />
      <NotifySetting />
      <ChatAppsSettings />
      <section>
        <h2>Access keys</h2>
        <p class="quiet">
          For scripts (conch chat, your own tools). A key can chat and answer questions, but can't turn skills on, make keys, or
          stop holding a chat to a skill's list: only you can.
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <ul class="keys">
          {(keys ?? []).map((k) => (
            <li key={k.id}>
              <strong>{k.name}</strong> <span class="quiet">made {new Date(k.created).toLocaleString()}</span>{" "}
              <button class="small" onClick={() => pageApi.revokeKey(k.id).then(load, (e) => setError(e.message))}>
                Revoke
              </button>
            </li>
          ))}
          {keys && keys.length === 0 && <li class="quiet">No keys.</li>}
        </ul>
        <form
          class="row"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            try {
              const k = await pageApi.newKey(name.trim());
              setMade(k.key);
              setName("");
              void load();
            } catch (err) {
              setError(err instanceof Error ? err.message : String(err));
            }
          }}
        >
          <input aria-label="Key name" placeholder="A name, like backup-script" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={!name.trim()}>
            Make a key
          </button>
        </form>
        {made && (
          <div class="made-key">
            <p>Here is the key. It is shown this once: copy it now.</p>
            <pre>{made}</pre>
          </div>
        )}
      </section>
      <section>
        <h2>Appearance</h2>
        <p class="quiet">Light and dark follow your system.</p>
      </section>
      <section>
        <h2>Session</h2>
        <div class="row">
          <button onClick={() => pageApi.signOut().then(onSignOut, onSignOut)}>Sign out</button>
          <button
            class="danger"
            onClick={() => {
              if (confirm("Sign out every browser that is signed in to Conch, this one too?")) {
                pageApi.signOutEverywhere().then(onSignOut, onSignOut);
              }
            }}
          >
            Sign out everywhere
          </button>
        </div>
        <p class="quiet">Signing in lasts 7 days unused, across restarts. Sign out everywhere ends every browser's session (also: conch sessions revoke).</p>
      </section>
    </div>
  );
}
