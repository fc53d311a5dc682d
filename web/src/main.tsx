import { render, type ComponentType } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, type ArtifactSummary, type ChatSummary, type Skill } from "./api";
import { onChange, pinned as loadPinned, showBeside } from "./artifacts/cache";
import { kindWord } from "./artifacts/kinds";
import { lazyPart } from "./artifacts/lazy";
import { StoppedBar, useStopAll } from "./components/StopAll";
import { ChatPage } from "./components/ChatPage";
import type { Command } from "./components/Palette";
import { Sidebar } from "./components/Sidebar";
import { SignIn } from "./components/SignIn";
import { shell, TopBar } from "./components/TopBar";
import { navigate, route, usePath } from "./router";
import "./styles.css";

// Pages and dialogs other than the chat are loaded when first shown, so
// the first page stays small.
const useAppPage = lazyPart(() => import("./artifacts/AppPage"));
const useActivity = lazyPart(() => import("./components/ActivityPage"));
const useSkills = lazyPart(() => import("./components/SkillsPage"));
const useSettings = lazyPart(() => import("./components/SettingsPage"));
const useSecurity = lazyPart(() => import("./components/SecurityPage"));
const useModels = lazyPart(() => import("./components/ModelsPage"));
const useMemories = lazyPart(() => import("./components/MemoriesPage"));
const useAppsPage = lazyPart(() => import("./components/AppsPage"));
const useChatApps = lazyPart(() => import("./components/ChatAppsSettings"));
const usePasswords = lazyPart(() => import("./components/PasswordsPage"));
const useBackups = lazyPart(() => import("./components/BackupsPage"));
const useTrash = lazyPart(() => import("./components/TrashPage"));
const useRoutines = lazyPart(() => import("./components/RoutinesPage"));
const usePalette = lazyPart(() => import("./components/Palette"));
const useShortcuts = lazyPart(() => import("./components/Shortcuts"));

/** A part loaded on first use, with a quiet line meanwhile. */
function Lazy<T>(props: { use: () => T | null; pick: (m: T) => ComponentType<any>; props?: object; quiet?: boolean }) {
  const part = props.use();
  if (!part) return props.quiet ? null : <p class="quiet page">Opening…</p>;
  const Part = props.pick(part);
  return <Part {...(props.props ?? {})} />;
}

const PAGE_TITLES: Record<string, string> = {
  home: "Conch",
  activity: "Activity",
  skills: "Skills",
  settings: "Settings",
  security: "Security",
  models: "Models",
  apps: "Connections",
  chatapps: "Chat apps",
  passwords: "Passwords",
  backups: "Backups",
  routines: "Routines",
  memories: "Memories",
  app: "Pinned",
  trash: "Trash",
};

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const path = usePath();
  const r = route(path);
  const [chats, setChats] = useState<ChatSummary[]>([]);
  /** Whether the chat list has been read once (before that, none is no news). */
  const [listed, setListed] = useState(false);
  const [skills, setSkills] = useState<Skill[]>([]);
  const [apps, setApps] = useState<ArtifactSummary[]>([]);
  const [made, setMade] = useState<ArtifactSummary[]>([]);
  const [palette, setPalette] = useState(false);
  const [shortcuts, setShortcuts] = useState(false);
  const [menu, setMenu] = useState(false);
  const halt = useStopAll();
  // A chat just deleted: Undo puts it back for 10 seconds.
  const [undo, setUndo] = useState<{ id: string; title: string } | null>(null);
  useEffect(() => {
    if (!undo) return;
    const t = setTimeout(() => setUndo(null), 10_000);
    return () => clearTimeout(t);
  }, [undo]);
  const [chatTitle, setChatTitle] = useState<string | null>(null);
  const holds = useRef<{ skill: string; stop: () => void }[]>([]);
  /** What each chat was waiting on when last looked at: a rise notifies. */
  const loadChats = useCallback(() => {
    const load = () =>
      api.chats().then(
        (c) => {
          setChats(c);
          setListed(true);
        },
        (e) => {
          if (e instanceof ApiError && e.status === 401) onSignOut();
        },
      );
    void load();
    // A chat's runner lets go a moment after its turn ends: look again.
    setTimeout(() => void load(), 900);
  }, []);
  const loadApps = useCallback(() => void loadPinned().then(setApps, () => undefined), []);
  // The owner's notifications: a question somewhere (a chat app's, a
  // routine's) shows as a browser notification while this page is hidden.
  // Each notice changes what needs you: the chat list says.
  // Notices (questions, routines' results) aren't needed to draw the
  // first page: they load right after it.
  useEffect(() => {
    let stop: (() => void) | null = null;
    let gone = false;
    void import("./notices").then((m) => {
      if (!gone) stop = m.listenForNotices((chat) => navigate(`/chats/${chat}`), () => loadChats());
    });
    return () => {
      gone = true;
      stop?.();
    };
  }, []);
  useEffect(() => {
    loadChats();
    loadApps();
    const t = setInterval(loadChats, 10000);
    const off = onChange(loadApps);
    return () => {
      clearInterval(t);
      off();
    };
  }, []);
  const openPalette = () => {
    api.skills().then(setSkills, () => undefined);
    api.artifacts().then(setMade, () => undefined);
    setMenu(false);
    setPalette(true);
  };
  shell.menu = () => setMenu(!menu);
  shell.search = openPalette;
  shell.menuOpen = menu;
  // The phone's drawer takes the focus when it opens, and Esc closes it,
  // giving the focus back to ☰.
  useEffect(() => {
    if (!menu) return;
    document.querySelector<HTMLElement>(".sidebar .sidebar-top button")?.focus();
    const esc = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      setMenu(false);
      document.querySelector<HTMLElement>('button[aria-label="Chats and pages"]')?.focus();
    };
    addEventListener("keydown", esc);
    return () => removeEventListener("keydown", esc);
  }, [menu]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k") {
        e.preventDefault();
        if (palette) setPalette(false);
        else openPalette();
        return;
      }
      const t = e.target as HTMLElement | null;
      const typing = t && (t.tagName === "TEXTAREA" || t.tagName === "INPUT" || t.tagName === "SELECT" || t.isContentEditable);
      if (e.key === "?" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        setShortcuts(true);
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [palette]);
  // Needs you: the tab's title. The notification when the page is hidden
  // comes from Conch's notices (notices.ts), one for each question.
  const waiting = chats.filter((c) => c.waiting > 0 && !c.archived);
  const here = r.page === "chat" ? chatTitle || "New chat" : PAGE_TITLES[r.page] ?? "Conch";
  useEffect(() => {
    const base = r.page === "chat" || (r.page !== "home" && here !== "Conch") ? `${here} · Conch` : "Conch";
    const count = waiting.reduce((n, c) => n + c.waiting, 0);
    document.title = count ? `(${count}) Needs you · ${base}` : base;
  }, [here, waiting.length, chats]);
  const newChat = async () => {
    const { id } = await api.newChat();
    loadChats();
    navigate(`/chats/${id}`);
    setMenu(false);
    // After New chat, the cursor is in the message box.
    setTimeout(() => document.querySelector<HTMLElement>("textarea[aria-label=Message]")?.focus(), 0);
  };
  // With no chat open, go to the newest one.
  const shownChats = chats.filter((c) => !c.archived);
  // With no chat at all (the first run), a new one is ready to write in.
  const started = useRef(false);
  useEffect(() => {
    if (r.page === "home" && shownChats.length) navigate(`/chats/${shownChats[0].id}`);
    else if (r.page === "home" && listed && chats.length === 0 && !started.current) {
      started.current = true;
      // Only if the owner is still on the first screen when it's ready.
      void api.newChat().then(({ id }) => {
        loadChats();
        if (location.pathname !== "/") return;
        navigate(`/chats/${id}`);
        setTimeout(() => document.querySelector<HTMLElement>("textarea[aria-label=Message]")?.focus(), 0);
      }, () => undefined);
    }
  }, [r.page, shownChats.length, listed]);
  const commands: Command[] = [
    { label: "New chat", hint: "Command", run: () => void newChat() },
    { label: "Keyboard shortcuts", hint: "Command", run: () => setShortcuts(true) },
    halt.stopped
      ? { label: "Resume: let Conch act again", hint: "Command", run: () => void halt.resume() }
      : { label: "Stop everything", hint: "Command", run: () => void halt.stop() },
    // Things made beside a chat: a pinned one opens on its page, anything
    // else beside its chat.
    ...made.map((a) => ({
      label: a.title,
      hint: `${kindWord(a.kind)}${a.pinned ? ", pinned" : ""}`,
      run: () => {
        if (a.pinned || !a.chat) return navigate(`/apps/${encodeURIComponent(a.id)}`);
        navigate(`/chats/${a.chat}?artifact=${encodeURIComponent(a.id)}`);
        showBeside(a.chat, a.id);
      },
    })),
    ...holds.current.map((h) => ({
      label: `Stop holding this chat to ${h.skill}'s list`,
      hint: "Command",
      run: () => {
        if (confirm(`The ${h.skill} skill's instructions are still in this chat. Stop holding it to ${h.skill}'s list?`)) h.stop();
      },
    })),
  ];
  return (
    <div class={`shell ${menu ? "menu-open" : ""}`}>
      <Sidebar
        chats={chats}
        apps={apps}
        current={r.page === "chat" || r.page === "app" ? r.id : null}
        page={r.page}
        onNew={() => void newChat()}
        onClose={() => setMenu(false)}
        stopped={Boolean(halt.stopped)}
        onStopAll={() => {
          setMenu(false);
          void (halt.stopped ? halt.resume() : halt.stop());
        }}
      />
      <main>
        <StoppedBar stopped={halt.stopped} error={halt.error} onResume={() => void halt.resume()} />
        {r.page !== "chat" && <TopBar title={here} />}
        {r.page === "chat" && (
          <ChatPage
            // A result found inside this same chat opens it again at its line.
            key={`${r.id}:${new URLSearchParams(location.search).get("at") ?? ""}`}
            id={r.id}
            onActivity={loadChats}
            onTitle={setChatTitle}
            onGone={(how) => {
              // Gone from the list now, so the home page doesn't open it again.
              const id = r.id;
              if (how === "deleted") setUndo({ id, title: chatTitle || "The chat" });
              setChats((cs) => (how === "deleted" ? cs.filter((c) => c.id !== id) : cs.map((c) => (c.id === id ? { ...c, archived: true } : c))));
              loadChats();
              navigate("/");
            }}
            holdsRef={(h) => {
              holds.current = h;
            }}
          />
        )}
        {r.page === "home" && (
          <div class="empty-state">
            <h1>Conch</h1>
            <p class="quiet">Start a chat: your assistant, on your own computer.</p>
            <button class="primary" onClick={() => void newChat()}>
              New chat
            </button>
          </div>
        )}
        {r.page === "skills" && <Lazy use={useSkills} pick={(m) => m.SkillsPage} props={{ id: r.id }} />}
        {r.page === "settings" && <Lazy use={useSettings} pick={(m) => m.SettingsPage} props={{ onSignOut }} />}
        {r.page === "security" && <Lazy use={useSecurity} pick={(m) => m.SecurityPage} />}
        {r.page === "models" && <Lazy use={useModels} pick={(m) => m.ModelsPage} />}
        {r.page === "apps" && <Lazy use={useAppsPage} pick={(m) => m.AppsPage} />}
        {r.page === "chatapps" && <Lazy use={useChatApps} pick={(m) => m.ChatAppsPage} />}
        {r.page === "activity" && <Lazy key={r.waiting ? "waiting" : "all"} use={useActivity} pick={(m) => m.ActivityPage} props={{ waiting: r.waiting }} />}
        {r.page === "app" && <Lazy key={r.id} use={useAppPage} pick={(m) => m.AppPage} props={{ id: r.id }} />}
        {r.page === "memories" && <Lazy use={useMemories} pick={(m) => m.MemoriesPage} />}
        {r.page === "passwords" && <Lazy use={usePasswords} pick={(m) => m.PasswordsPage} />}
        {r.page === "backups" && <Lazy use={useBackups} pick={(m) => m.BackupsPage} />}
        {r.page === "trash" && <Lazy use={useTrash} pick={(m) => m.TrashPage} props={{ onRestored: loadChats }} />}
        {r.page === "routines" && <Lazy use={useRoutines} pick={(m) => m.RoutinesPage} />}
      </main>
      {palette && (
        <Lazy
          quiet
          use={usePalette}
          pick={(m) => m.Palette}
          props={{
            chats: chats.filter((c) => !c.archived),
            skills,
            commands,
            onClose: () => setPalette(false),
            openChat: (id: string) => navigate(`/chats/${id}`),
            openSkill: (id: string) => navigate(`/skills/${encodeURIComponent(id)}`),
          }}
        />
      )}
      {undo && (
        <div class="undo-toast" role="status">
          <span>{undo.title === "The chat" ? "Chat" : `"${undo.title}"`} moved to the trash.</span>{" "}
          <button
            class="small"
            onClick={() => {
              const { id } = undo;
              setUndo(null);
              api.restore(id).then(
                () => {
                  loadChats();
                  navigate(`/chats/${id}`);
                },
                () => navigate("/settings/trash"),
              );
            }}
          >
            Undo
          </button>
        </div>
      )}
      {shortcuts && <Lazy quiet use={useShortcuts} pick={(m) => m.Shortcuts} props={{ onClose: () => setShortcuts(false) }} />}
    </div>
  );
}

/** The gateway says in the page whether this browser is signed in, so a
 *  signed-out page doesn't ask (and log a refusal) first. */
function signedIn(): "in" | "out" | "checking" {
  const said = document.querySelector('meta[name="conch-session"]')?.getAttribute("content");
  return said === "in" || said === "out" ? said : "checking";
}

function App() {
  const [state, setState] = useState<"checking" | "out" | "in">(signedIn);
  useEffect(() => {
    if (state !== "checking") return;
    api.session().then(
      () => setState("in"),
      () => setState("out"),
    );
  }, []);
  if (state === "checking") return null;
  if (state === "out") return <SignIn onIn={() => setState("in")} />;
  return <Shell onSignOut={() => setState("out")} />;
}

const root = document.getElementById("app");
if (root) render(<App />, root);
// What replies are drawn with, fetched once the first page is up.
setTimeout(() => void import("./markdown"), 0);
