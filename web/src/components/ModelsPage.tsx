// Settings → Models: the providers turns run on, as `conch providers …`
// manages them. A key goes in once: it is sealed on this computer and never
// shown again. Test sends one short request and says what came back.

import { useEffect, useState } from "preact/hooks";
import { SpendingSettings } from "./SpendingSettings";
import { api, type Provider, type Tested } from "../api";
import { pageApi } from "../pageApi";
import { navigate } from "../router";
import "../pages.css";
import { Confirm } from "./Confirm";

function said(t: Tested): string {
  return t.ok ? `It answered: “${t.answer}” (${t.ms} ms).` : `It didn't work: ${t.error}`;
}

function Row(props: { p: Provider; onChanged: () => void; onError: (e: unknown) => void }) {
  const { p } = props;
  const [testing, setTesting] = useState(false);
  const [result, setResult] = useState<Tested | null>(null);
  const [asking, setAsking] = useState(false);
  return (
    <li class="provider" data-provider={p.name}>
      <div>
        <strong>{p.name}</strong> {p.default && <span class="badge">default</span>}
        <div class="quiet">
          {p.kind === "anthropic" ? "Anthropic" : "OpenAI-compatible"} · {p.model} · <span class="url">{p.baseUrl}</span> ·{" "}
          {p.hasKey ? "key sealed on this computer" : "no key"}
        </div>
      </div>
      <div class="actions">
        <button
          class="small"
          disabled={testing}
          onClick={async () => {
            setTesting(true);
            setResult(null);
            try {
              setResult(await pageApi.testProvider(p.name));
            } catch (e) {
              props.onError(e);
            } finally {
              setTesting(false);
            }
          }}
        >
          {testing ? "Testing…" : "Test"}
        </button>
        {!p.default && (
          <button class="small" onClick={() => pageApi.defaultProvider(p.name).then(props.onChanged, props.onError)}>
            Use by default
          </button>
        )}
        <button class="small danger" onClick={() => setAsking(true)}>
          Remove
        </button>
      </div>
      {result && (
        <p class={result.ok ? "tested ok" : "tested error"} role="status">
          {said(result)}
        </p>
      )}
      {asking && (
        <Confirm label={`Remove ${p.name}?`} onKeep={() => setAsking(false)}>
          <p>Remove {p.name} and its key? Chats that picked it use the default from their next turn.</p>
          <button class="danger" onClick={() => pageApi.removeProvider(p.name).then(props.onChanged, props.onError)}>
            Remove
          </button>
          <button data-keep onClick={() => setAsking(false)}>
            Keep it
          </button>
        </Confirm>
      )}
    </li>
  );
}

export function ModelsPage() {
  const [list, setList] = useState<Provider[] | null>(null);
  const [engine, setEngine] = useState("mock");
  const [error, setError] = useState<string | null>(null);
  const [kind, setKind] = useState<"openai" | "anthropic">("openai");
  const [name, setName] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [model, setModel] = useState("");
  const [key, setKey] = useState("");
  const [added, setAdded] = useState<string | null>(null);
  const fail = (e: unknown) => setError(e instanceof Error ? e.message : String(e));
  const load = () =>
    api.providers().then((r) => {
      setList(r.providers);
      setEngine(r.engine);
    }, fail);
  useEffect(() => void load(), []);
  return (
    <div class="page models">
      <h1>Models</h1>
      <p class="quiet">
        The providers your chats run on. Each chat can pick one for its next turn (beside the message box); the default
        answers otherwise. The same as <code>conch providers</code> in a terminal.{" "}
        <a
          href="/settings"
          onClick={(e) => {
            e.preventDefault();
            navigate("/settings");
          }}
        >
          Back to Settings
        </a>
      </p>
      <ul class="providers">
        {(list ?? []).map((p) => (
          <Row key={p.name} p={p} onChanged={() => void load()} onError={fail} />
        ))}
        {list && list.length === 0 && (
          <li class="quiet">No providers yet: chats are answered by the built-in {engine === "mock" ? "mock engine (no model, no network)" : engine}.</li>
        )}
      </ul>
      <h2>Add a provider</h2>
      <form
        class="add-provider"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          setAdded(null);
          try {
            const r = await pageApi.addProvider({
              name: name.trim(),
              kind,
              baseUrl: baseUrl.trim() || undefined,
              model: model.trim(),
              key: key.trim() || undefined,
            });
            setAdded(
              `Added ${r.name}.${r.hasKey ? " Its key is sealed on this computer and won't be shown again." : " No key was stored (fine for Ollama or llama.cpp)."}${r.default ? " It's the default." : ""}`,
            );
            setKey("");
            setName("");
            setModel("");
            setBaseUrl("");
            void load();
          } catch (err) {
            fail(err);
          }
        }}
      >
        <fieldset>
          <legend>Kind</legend>
          <label>
            <input type="radio" name="kind" checked={kind === "openai"} onChange={() => setKind("openai")} /> OpenAI-compatible (OpenAI,
            OpenRouter, Ollama, llama.cpp, vLLM)
          </label>
          <label>
            <input type="radio" name="kind" checked={kind === "anthropic"} onChange={() => setKind("anthropic")} /> Anthropic
          </label>
        </fieldset>
        <label>
          Name
          <input required value={name} placeholder="openai" maxLength={40} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Base URL
          <input
            value={baseUrl}
            placeholder={kind === "anthropic" ? "https://api.anthropic.com" : "https://api.openai.com/v1"}
            onInput={(e) => setBaseUrl((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Model
          <input
            required
            value={model}
            placeholder={kind === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o-mini"}
            onInput={(e) => setModel((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Key
          <input
            type="password"
            autocomplete="off"
            value={key}
            placeholder="Entered once, then sealed"
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button class="primary" type="submit" disabled={!name.trim() || !model.trim()}>
          Add
        </button>
      </form>
      {added && (
        <p class="quiet" role="status">
          {added}
        </p>
      )}
      <SpendingSettings key={list?.map((p) => p.name).join(",")} />
    </div>
  );
}
