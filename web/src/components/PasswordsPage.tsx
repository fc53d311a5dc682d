import { useEffect, useState } from "preact/hooks";
import "../pages.css";
import { type KeptKey } from "../api";
import { pageApi } from "../pageApi";

const KINDS: { kind: KeptKey["kind"]; title: string; about: string }[] = [
  { kind: "provider", title: "Provider keys", about: "The keys Conch uses to reach your model providers." },
  { kind: "app", title: "Connections' tokens", about: "What your connections (MCP servers) are signed in with." },
  { kind: "chatApp", title: "Chat apps", about: "Your Telegram bot's token. Give a new one in Settings → Notifications and chat apps; remove it with conch bridges remove telegram." },
  { kind: "accessKey", title: "Access keys", about: "For scripts. Revoking one stops it at once." },
  { kind: "signingKey", title: "Key for signing skills", about: "Share its public key; the key itself can't be copied out." },
  { kind: "deviceKey", title: "This computer's own key", about: "Locks every other key here. It never leaves this computer." },
];

/** Settings → Passwords: every key by name and fingerprint, never its value. */
export function PasswordsPage() {
  const [keys, setKeys] = useState<KeptKey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [replacing, setReplacing] = useState<string | null>(null);
  const [newKey, setNewKey] = useState("");
  const load = () =>
    pageApi.passwords().then(
      (k) => setKeys(k),
      (e: Error) => setError(e.message),
    );
  useEffect(() => {
    void load();
  }, []);
  const act = async (what: () => Promise<unknown>) => {
    setError(null);
    try {
      await what();
      setReplacing(null);
      setNewKey("");
      await load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div class="page passwords">
      <h1>Passwords</h1>
      <p class="quiet">Every key Conch keeps, by name and fingerprint. Their values are never shown.</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {KINDS.map(({ kind, title, about }) => {
        const rows = (keys ?? []).filter((k) => k.kind === kind);
        if (rows.length === 0) return null;
        return (
          <section key={kind} data-kind={kind}>
            <h2>{title}</h2>
            <p class="quiet">{about}</p>
            <ul class="keys">
              {rows.map((k) => (
                <li key={`${k.name}-${k.field ?? ""}-${k.id ?? ""}`}>
                  <strong>{k.name}</strong>
                  {k.field && <span> · {k.field}</span>} {k.fingerprint && <code>{k.fingerprint}</code>}
                  {k.says && <p class="quiet">{k.says}</p>}
                  {k.keystore && !k.says && <p class="quiet">Kept by {k.keystore}.</p>}
                  {k.publicKey && (
                    <p>
                      <code>{k.publicKey}</code>{" "}
                      <button class="small" onClick={() => void navigator.clipboard.writeText(k.publicKey ?? "")}>
                        Copy the public key
                      </button>
                    </p>
                  )}
                  {kind === "provider" && (
                    <span>
                      {" "}
                      <button class="small" onClick={() => setReplacing(k.name)}>
                        Replace
                      </button>{" "}
                      <button class="small danger" onClick={() => void act(() => pageApi.removeProviderKey(k.name))}>
                        Remove
                      </button>
                    </span>
                  )}
                  {kind === "accessKey" && k.id && (
                    <button class="small danger" onClick={() => void act(() => pageApi.revokeKey(k.id ?? ""))}>
                      Revoke
                    </button>
                  )}
                  {kind === "app" && (
                    <button class="small danger" onClick={() => void act(() => pageApi.removeAppTokens(k.name))}>
                      Remove
                    </button>
                  )}
                  {replacing === k.name && kind === "provider" && (
                    <form
                      class="confirm"
                      onSubmit={(e) => {
                        e.preventDefault();
                        void act(() => pageApi.replaceProviderKey(k.name, newKey));
                      }}
                    >
                      <input
                        type="password"
                        aria-label={`New key for ${k.name}`}
                        autocomplete="off"
                        autoFocus
                        value={newKey}
                        onInput={(e) => setNewKey((e.target as HTMLInputElement).value)}
                      />
                      <button type="submit" class="primary" disabled={!newKey.trim()}>
                        Save the new key
                      </button>
                      <button type="button" onClick={() => setReplacing(null)}>
                        Cancel
                      </button>
                    </form>
                  )}
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}
