import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { navigate } from "../router";
import type { ChatSummary, Skill } from "../api";
import { KIND_WORDS, matchesWords, resultPath, useContentSearch, warmSearch, type SearchPart } from "../search";
import { FoundLine } from "./Found";
import "../pages.css";

export interface Command {
  label: string;
  hint?: string;
  /** A line found inside a chat, shown with its matches marked. */
  parts?: SearchPart[];
  run: () => void;
}

/** Ctrl K / ⌘K: find chats (by name and by the words inside them), skills,
 *  pages and commands. The pages it goes to are kept here, loaded with it. */
const PAGES: [string, string, string?][] = [
  ["Skills", "/skills"],
  ["Activity", "/activity"],
  ["Memories", "/memories"],
  ["Routines", "/routines"],
  ["Settings", "/settings"],
  ["Models", "/settings/models"],
  ["Connections (MCP servers)", "/settings/connections"],
  ["Chat apps (Telegram)", "/settings/chat-apps"],
  ["Security and Safety", "/settings/security"],
  ["Passwords", "/settings/passwords"],
  ["Backups", "/settings/backups"],
  ["Repair everything", "/settings/security", "Security"],
];

export function Palette(props: { chats: ChatSummary[]; skills: Skill[]; commands: Command[]; onClose: () => void; openChat: (id: string) => void; openSkill: (id: string) => void }) {
  const [q, setQ] = useState("");
  const [at, setAt] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    warmSearch();
  }, []);
  const inside = useContentSearch(q, 20);
  const items: Command[] = useMemo(() => {
    const all: Command[] = [
      ...props.commands,
      ...PAGES.map(([label, path, hint]) => ({ label, hint: hint ?? "Page", run: () => navigate(path) })),
      ...props.chats.map((c) => ({ label: c.title || "New chat", hint: "Chat", run: () => props.openChat(c.id) })),
      ...props.skills.map((s) => ({ label: s.name, hint: "Skill", run: () => props.openSkill(s.id) })),
    ];
    const needle = q.trim().toLowerCase();
    const named = (needle ? all.filter((i) => matchesWords(i.label, needle) || i.label.toLowerCase().includes(needle)) : all).slice(0, 50);
    const titles = new Map(props.chats.map((c) => [c.id, c.title || "New chat"]));
    const found: Command[] = needle
      ? (inside.found?.results ?? []).map((r) => ({
          label: r.line,
          parts: r.parts,
          hint: `${titles.get(r.chat) ?? "A chat"} · ${KIND_WORDS[r.kind]}`,
          run: () => navigate(resultPath(r)),
        }))
      : [];
    return [...named, ...found];
  }, [q, props.chats, props.skills, props.commands, inside.found]);
  const run = (i: Command | undefined) => {
    if (!i) return;
    props.onClose();
    i.run();
  };
  return (
    <div class="palette-backdrop" onClick={props.onClose}>
      <div class="palette" role="dialog" aria-label="Find" onClick={(e) => e.stopPropagation()}>
        <input
          ref={input}
          aria-label="Find chats, skills and commands"
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-results"
          aria-activedescendant={items[at] ? `palette-${at}` : undefined}
          placeholder="Find chats, skills and commands"
          value={q}
          onInput={(e) => {
            setQ((e.target as HTMLInputElement).value);
            setAt(0);
          }}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              e.preventDefault();
              setAt(Math.min(at + 1, items.length - 1));
            } else if (e.key === "ArrowUp") {
              e.preventDefault();
              setAt(Math.max(at - 1, 0));
            } else if (e.key === "Enter") {
              e.preventDefault();
              run(items[at]);
            } else if (e.key === "Escape") {
              props.onClose();
            }
          }}
        />
        <ul role="listbox" id="palette-results" aria-label="What matches">
          {items.map((i, n) => (
            <li key={`${i.hint}:${i.label}:${n}`} id={`palette-${n}`} role="option" aria-selected={n === at} class={n === at ? "at" : ""} onClick={() => run(i)}>
              {i.parts ? <FoundLine parts={i.parts} /> : i.label}
              {i.hint && <span class="quiet"> {i.hint}</span>}
            </li>
          ))}
          {items.length === 0 && <li class="quiet">{inside.busy ? "Searching inside chats…" : "Nothing matches."}</li>}
        </ul>
      </div>
    </div>
  );
}
