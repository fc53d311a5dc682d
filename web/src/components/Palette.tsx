import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { navigate } from "../router";
import type { ChatSummary, Skill } from "../api";
import "../pages.css";

export interface Command {
  label: string;
  hint?: string;
  run: () => void;
}

/** Ctrl K / ⌘K: find chats, skills and commands. */
/** The pages ⌘K goes to (kept here, loaded with the palette). */
const PAGES: [string, string, string?][] = [
  ["Skills", "/skills"],
  ["Activity", "/activity"],
  ["Memories", "/memories"],
  ["Routines", "/routines"],
  ["Settings", "/settings"],
  ["Models", "/settings/models"],
  ["Apps (MCP servers)", "/settings/apps"],
  ["Security and Safety", "/settings/security"],
  ["Passwords", "/settings/passwords"],
  ["Backups", "/settings/backups"],
  ["Repair everything", "/settings/security", "Security"],
];

export function Palette(props: { chats: ChatSummary[]; skills: Skill[]; commands: Command[]; onClose: () => void; openChat: (id: string) => void; openSkill: (id: string) => void }) {
  const [q, setQ] = useState("");
  const [at, setAt] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const items: Command[] = useMemo(() => {
    const all: Command[] = [
      ...props.commands,
      ...PAGES.map(([label, path, hint]) => ({ label, hint: hint ?? "Page", run: () => navigate(path) })),
      ...props.chats.map((c) => ({ label: c.title || "New chat", hint: "Chat", run: () => props.openChat(c.id) })),
      ...props.skills.map((s) => ({ label: s.name, hint: "Skill", run: () => props.openSkill(s.id) })),
    ];
    const needle = q.trim().toLowerCase();
    return (needle ? all.filter((i) => i.label.toLowerCase().includes(needle)) : all).slice(0, 50);
  }, [q, props.chats, props.skills, props.commands]);
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
              {i.label}
              {i.hint && <span class="quiet"> {i.hint}</span>}
            </li>
          ))}
          {items.length === 0 && <li class="quiet">Nothing matches.</li>}
        </ul>
      </div>
    </div>
  );
}
