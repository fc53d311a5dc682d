// The Memories page: what Conch remembers, where each memory came from,
// and the ones waiting for you ("Keep this memory?"). Held memories are
// listed first and aren't used until you keep them.

import { useEffect, useState } from "preact/hooks";
import { api, type Memory } from "../api";
import { navigate } from "../router";
import "../pages.css";

function Source({ m }: { m: Memory }) {
  const chat = m.source.chat;
  const words = m.source.kind === "owner" ? "You wrote it" : `From ${m.source.says}`;
  if (!chat) return <span class="quiet">{words}</span>;
  return (
    <span class="quiet">
      {words} ·{" "}
      <a
        href={`/chats/${chat}`}
        onClick={(e) => {
          e.preventDefault();
          navigate(`/chats/${chat}`);
        }}
      >
        open the chat
      </a>
    </span>
  );
}

function Item({ m, onChanged }: { m: Memory; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(m.text);
  const [error, setError] = useState<string | null>(null);
  const act = async (f: () => Promise<unknown>) => {
    setError(null);
    try {
      await f();
      setEditing(false);
      onChanged();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const held = m.state === "held";
  return (
    <li class={`memory${held ? " waiting" : ""}`} data-memory={m.id}>
      {editing ? (
        <form
          class="memory-edit"
          onSubmit={(e) => {
            e.preventDefault();
            void act(() => api.editMemory(m.id, text));
          }}
        >
          <textarea aria-label="The memory's words" rows={2} maxLength={500} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
          <button type="submit" class="small primary" disabled={!text.trim()}>
            Save
          </button>
          <button type="button" class="small" onClick={() => (setEditing(false), setText(m.text))}>
            Cancel
          </button>
        </form>
      ) : (
        <p class="memory-text">{m.text}</p>
      )}
      <Source m={m} />
      {held && (
        <div class="held">
          <p>
            <strong>Keep this memory?</strong> It isn't used until you keep it. Held because {m.reasons.map((r) => r.says).join("; ")}.
          </p>
        </div>
      )}
      <span class="answers">
        {held && (
          <button class="small primary" onClick={() => void act(() => api.keepMemory(m.id))}>
            Keep
          </button>
        )}
        {!editing && (
          <button class="small" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        <button class="small danger" onClick={() => void act(() => api.forgetMemory(m.id))}>
          Forget
        </button>
      </span>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

export function MemoriesPage() {
  const [memories, setMemories] = useState<Memory[] | null>(null);
  const [warning, setWarning] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [text, setText] = useState("");
  const load = async () => {
    try {
      const got = await api.memories();
      setMemories(got.memories);
      setWarning(got.warning ?? null);
      setError(null);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  useEffect(() => {
    void load();
  }, []);
  const add = async (e: Event) => {
    e.preventDefault();
    try {
      await api.addMemory(text);
      setText("");
      void load();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const held = memories?.filter((m) => m.state === "held") ?? [];
  const kept = memories?.filter((m) => m.state === "kept") ?? [];
  return (
    <div class="page memories">
      <h1>Memories</h1>
      <p class="quiet">
        Short facts Conch keeps about you and your world, given to each new chat as information, never as instructions. A memory written after
        reading something from outside, or one that reads like an instruction or names an address, waits here until you keep it.
      </p>
      {warning && (
        <p class="error" role="alert">
          {warning}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form class="memory-add" onSubmit={add}>
        <input
          type="text"
          aria-label="Something to remember"
          placeholder="Something to remember, in your own words"
          maxLength={500}
          value={text}
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary" disabled={!text.trim()}>
          Remember
        </button>
      </form>
      {held.length > 0 && (
        <section>
          <h2>Waiting for you</h2>
          <ul class="memory-list">
            {held.map((m) => (
              <Item key={m.id} m={m} onChanged={() => void load()} />
            ))}
          </ul>
        </section>
      )}
      <section>
        <h2>Kept</h2>
        <ul class="memory-list">
          {kept.map((m) => (
            <Item key={m.id} m={m} onChanged={() => void load()} />
          ))}
        </ul>
        {memories && kept.length === 0 && <p class="quiet">Nothing kept yet.</p>}
      </section>
    </div>
  );
}
