// Settings → Connections: the owner's MCP servers, whether each is
// connected, and each tool's choice; adding one (AddConnection.tsx).
// Removing one is done in a terminal (`conch connections remove`).

import { useEffect, useState } from "preact/hooks";
import { pageApi, type AppView } from "../pageApi";
import { AddConnection } from "./AddConnection";
import "../pages.css";

const CHOICES: [string, string][] = [
  ["follow", "Follow the mode"],
  ["ask", "Ask every time"],
  ["read-only", "Read only"],
  ["off", "Off"],
];

const STANDING: Record<string, string> = {
  on: "on",
  new: "new: off until you turn it on",
  changed: "changed since you turned it on: off until you look",
  off: "off",
  gone: "no longer listed by its server",
};

function statusWords(app: AppView): string {
  if (!app.on) return "off: not started";
  const s = app.status;
  if (!s) return "not started";
  if (s.state === "connected") return "connected";
  if (s.state === "connecting") return "connecting…";
  return `couldn't connect${s.error ? `: ${s.error}` : ""}`;
}

export function AppsPage() {
  const [apps, setApps] = useState<AppView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    pageApi.apps().then(
      (r) => setApps(r.apps),
      (e) => setError(e.message),
    );
  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), 5000);
    return () => clearInterval(t);
  }, []);
  const setOn = async (app: string, on: boolean) => {
    setError(null);
    try {
      await pageApi.setAppOn(app, on);
      await load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const choose = async (app: string, tool: string, choice: string) => {
    setError(null);
    try {
      await pageApi.chooseAppTool(app, tool, choice);
      await load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div class="page apps-page">
      <h1>Connections</h1>
      <p class="quiet">
        Your connections' tools are offered to the assistant. What they return marks the chat, so a tool that writes asks once
        the chat has read something, in every mode. Add one below, or in a terminal: <code>conch connections add NAME -- COMMAND</code>{" "}
        or <code>conch connections add NAME --url URL</code>. Remove one with <code>conch connections remove NAME</code>.
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {apps === null && !error && <p class="quiet">Opening…</p>}
      {apps?.length === 0 && <p class="quiet">No connections yet.</p>}
      {apps?.map((app) => (
        <section key={app.name} class="app" data-app={app.name}>
          <h2>
            {app.name} <span class="quiet">· {statusWords(app)}</span>
          </h2>
          {!app.on && (
            <p>
              Turning it on runs <code>{app.runs}</code> on this computer.{" "}
              <button type="button" onClick={() => void setOn(app.name, true)}>
                Turn on
              </button>
            </p>
          )}
          <ul class="app-tools">
            {app.tools.map((t) => (
              <li key={t.name} data-tool={t.name}>
                <div>
                  <strong>{t.title || t.name}</strong> <span class="badge">{t.readOnly ? "reads" : "writes"}</span>{" "}
                  <span class="quiet">{STANDING[t.standing] ?? t.standing}</span>
                  {t.description && <p class="quiet">{t.description}</p>}
                  {t.before?.description && t.before.description !== t.description && (
                    <p class="quiet">When you turned it on it said: {t.before.description}</p>
                  )}
                </div>
                <label>
                  <span class="visually-hidden">{`${app.name}.${t.name}`}</span>
                  <select
                    aria-label={`Choice for ${t.qualified}`}
                    value={t.standing === "new" || t.standing === "changed" ? "" : t.choice}
                    onChange={(e) => void choose(app.name, t.name, (e.target as HTMLSelectElement).value)}
                  >
                    {(t.standing === "new" || t.standing === "changed") && <option value="">Turn on as…</option>}
                    {CHOICES.map(([value, words]) => (
                      <option key={value} value={value}>
                        {words}
                      </option>
                    ))}
                  </select>
                </label>
              </li>
            ))}
          </ul>
        </section>
      ))}
      <AddConnection onAdded={() => void load()} />
    </div>
  );
}
