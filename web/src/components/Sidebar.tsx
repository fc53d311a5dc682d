import { useMemo, useState } from "preact/hooks";
import type { ArtifactSummary, ChatSummary } from "../api";
import { navigate } from "../router";
import { KIND_WORDS, matchesWords, resultPath, useContentSearch, warmSearch } from "../search";
import { FoundLine } from "./Found";

function when(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  const today = new Date();
  return d.toDateString() === today.toDateString()
    ? d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : d.toLocaleDateString([], { month: "short", day: "numeric" });
}

export function Sidebar(props: {
  chats: ChatSummary[];
  apps: ArtifactSummary[];
  current: string | null;
  page: string;
  onNew: () => void;
  onClose: () => void;
  /** Everything is stopped (the switch is on; the bar offers Resume). */
  stopped?: boolean;
  /** Stop all, or resume when stopped. */
  onStopAll?: () => void;
}) {
  const [search, setSearch] = useState("");
  const [archived, setArchived] = useState(false);
  const shown = useMemo(() => {
    const q = search.trim();
    const list = props.chats.filter((c) => c.archived === archived);
    return q ? list.filter((c) => matchesWords(c.title ?? "New chat", q)) : list;
  }, [props.chats, search, archived]);
  const inside = useContentSearch(search);
  const titles = useMemo(() => new Map(props.chats.map((c) => [c.id, c.title || "New chat"])), [props.chats]);
  const archivedCount = props.chats.filter((c) => c.archived).length;
  const go = (path: string) => {
    navigate(path);
    props.onClose();
  };
  // Questions waiting for the owner, in any chat (a routine's and a chat
  // app's too): one place to see them all.
  const needs = props.chats.reduce((n, c) => n + (c.waiting ?? 0), 0);
  return (
    <nav class={search.trim() ? "sidebar searching" : "sidebar"} aria-label="Chats and pages">
      <div class="sidebar-top">
        <span class="brand">Conch</span>
        <button class="primary" onClick={props.onNew}>
          New chat
        </button>
      </div>
      {needs > 0 && (
        <a
          class="needs-you"
          href="/activity?waiting"
          onClick={(e) => {
            e.preventDefault();
            go("/activity?waiting");
          }}
        >
          Needs you ({needs})
        </a>
      )}
      <input
        type="search"
        class="search"
        placeholder="Search chats"
        aria-label="Search chats"
        value={search}
        onFocus={warmSearch}
        onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Escape" && search) {
            e.stopPropagation();
            setSearch("");
          }
        }}
      />
      <ul class="chat-list">
        {shown.map((c) => (
          <li key={c.id}>
            <a
              href={`/chats/${c.id}`}
              class={props.page === "chat" && c.id === props.current ? "current" : ""}
              aria-current={props.page === "chat" && c.id === props.current ? "page" : undefined}
              onClick={(e) => {
                e.preventDefault();
                go(`/chats/${c.id}`);
              }}
            >
              <span class="title">{c.title || "New chat"}</span>
              {c.waiting > 0 ? (
                <span class="when needs">needs you</span>
              ) : (
                <span class="when">{c.running ? "working…" : when(c.updated)}</span>
              )}
            </a>
          </li>
        ))}
        {shown.length === 0 && <li class="quiet empty">{search ? "No chat's name matches." : archived ? "No archived chats." : "No chats yet."}</li>}
      </ul>
      {search.trim() && (
        <section class="found" aria-labelledby="found-heading" aria-busy={inside.busy}>
          <h2 id="found-heading" class="side-heading">
            Inside chats
          </h2>
          {inside.error && <p class="quiet">{inside.error}</p>}
          {!inside.error && inside.found === null && <p class="quiet">Searching…</p>}
          {inside.found && inside.found.results.length === 0 && <p class="quiet">No words inside a chat match.</p>}
          {inside.found && inside.found.results.length > 0 && (
            <ul class="found-list">
              {inside.found.results.map((r) => (
                <li key={`${r.chat}:${r.seq}`}>
                  <a
                    href={resultPath(r)}
                    onClick={(e) => {
                      e.preventDefault();
                      go(resultPath(r));
                    }}
                  >
                    <span class="found-where">
                      {titles.get(r.chat) ?? "A chat"} · {KIND_WORDS[r.kind]}
                    </span>
                    <FoundLine parts={r.parts} />
                  </a>
                </li>
              ))}
            </ul>
          )}
          {inside.found && inside.found.total > inside.found.results.length && (
            <p class="quiet">
              The {inside.found.results.length} newest of {inside.found.total}. Add a word to narrow it.
            </p>
          )}
        </section>
      )}
      {(archivedCount > 0 || archived) && (
        <button class="link archived-toggle" aria-pressed={archived} onClick={() => setArchived(!archived)}>
          {archived ? "Back to your chats" : `Archived (${archivedCount})`}
        </button>
      )}
      {props.apps.length > 0 && (
        <section class="apps" aria-labelledby="apps-heading">
          <h2 id="apps-heading" class="side-heading">
            Pinned
          </h2>
          <ul class="apps-list">
            {props.apps.map((a) => (
              <li key={a.id}>
                <a
                  href={`/apps/${a.id}`}
                  class={props.page === "app" && a.id === props.current ? "current" : ""}
                  aria-current={props.page === "app" && a.id === props.current ? "page" : undefined}
                  onClick={(e) => {
                    e.preventDefault();
                    go(`/apps/${a.id}`);
                  }}
                >
                  {a.title}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <div class="sidebar-bottom">
        <a
          href="/activity"
          class={props.page === "activity" ? "current" : ""}
          onClick={(e) => {
            e.preventDefault();
            go("/activity");
          }}
        >
          Activity
        </a>
        <a
          href="/routines"
          class={props.page === "routines" ? "current" : ""}
          onClick={(e) => {
            e.preventDefault();
            go("/routines");
          }}
        >
          Routines
        </a>
        <a
          href="/memories"
          class={props.page === "memories" ? "current" : ""}
          onClick={(e) => {
            e.preventDefault();
            go("/memories");
          }}
        >
          Memories
        </a>
        <a
          href="/skills"
          class={props.page === "skills" ? "current" : ""}
          onClick={(e) => {
            e.preventDefault();
            go("/skills");
          }}
        >
          Skills
        </a>
        <a
          href="/settings"
          class={props.page === "settings" || props.page === "security" ? "current" : ""}
          onClick={(e) => {
            e.preventDefault();
            go("/settings");
          }}
        >
          Settings
        </a>
        {props.onStopAll && (
          // A switch, on while everything is stopped: it isn't another
          // "Stop" button beside a running turn's own.
          <button
            role="switch"
            aria-checked={Boolean(props.stopped)}
            class={props.stopped ? "stop-all on small" : "stop-all small"}
            title={props.stopped ? "Everything is stopped. Switch off to resume." : "Every running turn, command, engine and browser action ends, and nothing starts until you resume."}
            onClick={props.onStopAll}
          >
            Stop all
          </button>
        )}
        <span class="quiet hint">Ctrl K to find anything</span>
      </div>
    </nav>
  );
}
