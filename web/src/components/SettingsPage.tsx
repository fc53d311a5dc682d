import { useEffect, useState } from "preact/hooks";
import { type AccessKey } from "../api";
import { pageApi } from "../pageApi";
import { navigate } from "../router";
import { ModelsLink } from "./ModelsLink";
import { NotifySetting } from "./NotifySetting";
import "../pages.css";

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
      <Contacts />
      <ModelsLink />
      <NotifySetting />
      <section>
        <h2>Chat apps</h2>
        <p>
          <a
            href="/settings/chat-apps"
            onClick={(e) => {
              e.preventDefault();
              navigate("/settings/chat-apps");
            }}
          >
            Telegram, and where you are told of a question waiting
          </a>
        </p>
      </section>
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

/** The people and places the owner sends to: in Auto mode, a mail or a
 *  message to one of them after reading goes to the reviewer, like one to
 *  someone named in the chat. Only the owner sets them. */
function Contacts() {
  const [text, setText] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    pageApi.contacts().then((c) => setText(c.contacts.join("\n")), (e: Error) => setError(e.message));
  }, []);
  return (
    <section>
      <h2>Contacts</h2>
      <p class="quiet">
        People and places you send to: addresses, channels, account numbers, one per line. In Auto mode, after a chat has read
        something, a message to one of them can be checked by the reviewer instead of asking you. Anyone else stays your
        question. A chat can't add to this list.
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form
        class="contacts"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          setSaid(null);
          try {
            const kept = await pageApi.setContacts((text ?? "").split("\n"));
            setText(kept.contacts.join("\n"));
            setSaid(`Saved: ${kept.contacts.length} ${kept.contacts.length === 1 ? "contact" : "contacts"}.`);
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
          }
        }}
      >
        <textarea
          aria-label="Contacts, one per line"
          rows={4}
          placeholder={"bob@example.com\n#team"}
          value={text ?? ""}
          disabled={text === null}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
        <button type="submit" disabled={text === null}>
          Save contacts
        </button>
        {said && (
          <span class="quiet" role="status">
            {said}
          </span>
        )}
      </form>
    </section>
  );
}
