import { useEffect, useState } from "preact/hooks";
import { type Bridge } from "../api";
import { pageApi } from "../pageApi";

// Settings → Chat apps, a page of its own: the same controls as `conch
// bridges`. Your own account is linked with a one-time code; anyone else who
// may talk to the bot is on the list, and their words mark the chat they
// write in. Where you are told of a question waiting is chosen here too.
export function ChatAppsPage() {
  const [bridges, setBridges] = useState<Bridge[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [token, setToken] = useState("");
  const [user, setUser] = useState("");
  const [code, setCode] = useState<string | null>(null);
  const [ways, setWays] = useState<{ way: string; on: boolean; linked: boolean }[]>([]);
  const load = () => {
    void pageApi.notificationWays().then((r) => setWays(r.ways), (e) => setError(e.message));
    return pageApi.bridges().then(setBridges, (e) => setError(e.message));
  };
  useEffect(() => {
    void load();
  }, []);
  const act = (p: Promise<unknown>) =>
    p.then(
      () => {
        setError(null);
        void load();
      },
      (e) => setError(e.message),
    );
  const telegram = bridges?.find((b) => b.app === "telegram");
  return (
    <div class="page chat-apps">
      <h1>Chat apps</h1>
      <p class="quiet">
        When something needs your OK in a chat nobody is in (a routine's, a chat app's), Conch tells you here and in your own
        Telegram chat with the bot, when it is linked.
      </p>
      <h2>Where you are told</h2>
      <p class="quiet">This browser's own notifications are under Notifications in Settings.</p>
      <ul class="ways">
        {ways.map((w) => (
          <li key={w.way}>
            <label>
              <input
                type="checkbox"
                checked={w.on}
                onChange={(e) =>
                  void pageApi.setNotificationWay(w.way, (e.target as HTMLInputElement).checked).then((r) => setWays(r.ways), (err) => setError(err.message))
                }
              />{" "}
              {w.way === "web" ? "Tell me on this page" : `Tell me in ${w.way[0].toUpperCase()}${w.way.slice(1)}`}
              {!w.linked && <span class="quiet"> (not linked yet)</span>}
            </label>
          </li>
        ))}
      </ul>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {said && <p class="quiet">{said}</p>}
      {telegram && (
        <div class="bridge">
          <h2>Telegram</h2>
          {!telegram.token ? (
            <form
              class="row"
              onSubmit={(e) => {
                e.preventDefault();
                void act(
                  pageApi.addBridge("telegram", token.trim()).then((r) => {
                    setSaid(r.says);
                    setToken("");
                  }),
                );
              }}
            >
              <input
                aria-label="Bot token"
                type="password"
                autocomplete="off"
                placeholder="The bot's token, from @BotFather"
                value={token}
                onInput={(e) => setToken((e.target as HTMLInputElement).value)}
              />
              <button type="submit" disabled={!token.trim()}>
                Save
              </button>
            </form>
          ) : (
            <p>
              {telegram.owner ? (
                <>
                  Linked to <strong>{telegram.owner.name}</strong>.
                </>
              ) : (
                "Not linked to your account yet."
              )}{" "}
              <button class="small" onClick={() => void pageApi.linkBridge("telegram").then((r) => setCode(r.send), (e) => setError(e.message))}>
                {telegram.owner ? "Link another account" : "Link my account"}
              </button>
            </p>
          )}
          {code && (
            <div class="made-key">
              <p>Send this to your bot from your own Telegram account, in a direct chat, within 10 minutes:</p>
              <pre>{code}</pre>
            </div>
          )}
          <h3>Who else may talk to the bot</h3>
          <ul>
            {telegram.allowed.map((a) => {
              const who = a.id ?? (a.handle ? `@${a.handle}` : "");
              return (
                <li key={who}>
                  {a.name ? `${a.name} ` : ""}
                  <span class="quiet">{a.handle ? `@${a.handle}` : ""} {a.id ?? "(hasn't written yet)"}</span>{" "}
                  <button class="small" onClick={() => void act(pageApi.disallow("telegram", who))}>
                    Remove
                  </button>
                </li>
              );
            })}
            {telegram.allowed.length === 0 && <li class="quiet">Nobody: strangers are told you haven't allowed them.</li>}
          </ul>
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void act(pageApi.allow("telegram", user.trim()).then(() => setUser("")));
            }}
          >
            <input
              aria-label="Their id or @handle"
              placeholder="Their numeric id or @handle"
              value={user}
              onInput={(e) => setUser((e.target as HTMLInputElement).value)}
            />
            <button type="submit" disabled={!user.trim()}>
              Allow
            </button>
          </form>
        </div>
      )}
    </div>
  );
}
