import { render } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, type ArtifactSummary, type ChatSummary, type Skill } from "./api";
import { onChange, pinned as loadPinned, showBeside } from "./artifacts/cache";
import { kindWord } from "./artifacts/kinds";
import { lazyPart } from "./artifacts/lazy";
import { ChatPage } from "./components/ChatPage";
import { Palette, type Command } from "./components/Palette";
import { ActivityPage } from "./components/ActivityPage";
import { RoutinesPage } from "./components/RoutinesPage";
import { listenForNotices } from "./notices";
import { SecurityPage } from "./components/SecurityPage";
import { SettingsPage } from "./components/SettingsPage";
import { Sidebar } from "./components/Sidebar";
import { SignIn } from "./components/SignIn";
import { SkillsPage } from "./components/SkillsPage";
import { navigate, route, usePath } from "./router";
import "./styles.css";

const useAppPage = lazyPart(() => import("./artifacts/AppPage"));

function AppRoute({ id }: { id: string }) {
  const part = useAppPage();
  return part ? <part.AppPage id={id} /> : <p class="quiet page">Opening…</p>;
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const path = usePath();
  const r = route(path);
  const [chats, setChats] = useState<ChatSummary[]>([]);
  const [skills, setSkills] = useState<Skill[]>([]);
  const [apps, setApps] = useState<ArtifactSummary[]>([]);
  const [made, setMade] = useState<ArtifactSummary[]>([]);
  const [palette, setPalette] = useState(false);
  const [menu, setMenu] = useState(false);
  const holds = useRef<{ skill: string; stop: () => void }[]>([]);
  const loadChats = useCallback(() => {
    const load = () =>
      api.chats().then(setChats, (e) => {
        if (e instanceof ApiError && e.status === 401) onSignOut();
      });
    void load();
    // A chat's runner lets go a moment after its turn ends: look again.
    setTimeout(() => void load(), 900);
  }, []);
  const loadApps = useCallback(() => void loadPinned().then(setApps, () => undefined), []);
  // The owner's notifications: a question somewhere (a chat app's, a
  // routine's) shows as a browser notification while this page is hidden.
  // Each notice changes what needs you: the chat list says.
  useEffect(() => listenForNotices((chat) => navigate(`/chats/${chat}`), () => loadChats()), []);
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
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k") {
        e.preventDefault();
        api.skills().then(setSkills, () => undefined);
        api.artifacts().then(setMade, () => undefined);
        setPalette((p) => !p);
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  const newChat = async () => {
    const { id } = await api.newChat();
    loadChats();
    navigate(`/chats/${id}`);
    setMenu(false);
  };
  // With no chat open, go to the newest one.
  useEffect(() => {
    if (r.page === "home" && chats.length) navigate(`/chats/${chats[0].id}`);
  }, [r.page, chats.length]);
  const commands: Command[] = [
    { label: "New chat", hint: "Command", run: () => void newChat() },
    { label: "Skills", hint: "Page", run: () => navigate("/skills") },
    { label: "Activity", hint: "Page", run: () => navigate("/activity") },
    { label: "Routines", hint: "Page", run: () => navigate("/routines") },
    { label: "Settings", hint: "Page", run: () => navigate("/settings") },
    { label: "Security and Safety", hint: "Page", run: () => navigate("/settings/security") },
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
      <button class="menu-button" aria-label="Chats and pages" aria-expanded={menu} onClick={() => setMenu(!menu)}>
        ☰
      </button>
      <Sidebar
        chats={chats}
        apps={apps}
        current={r.page === "chat" || r.page === "app" ? r.id : null}
        page={r.page}
        onNew={() => void newChat()}
        onClose={() => setMenu(false)}
      />
      <main>
        {r.page === "chat" && (
          <ChatPage
            key={r.id}
            id={r.id}
            onActivity={loadChats}
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
        {r.page === "skills" && <SkillsPage id={r.id} />}
        {r.page === "settings" && <SettingsPage onSignOut={onSignOut} />}
        {r.page === "security" && <SecurityPage />}
        {r.page === "activity" && <ActivityPage key={r.waiting ? "waiting" : "all"} waiting={r.waiting} />}
        {r.page === "routines" && <RoutinesPage />}
        {r.page === "app" && <AppRoute key={r.id} id={r.id} />}
      </main>
      {palette && (
        <Palette
          chats={chats}
          skills={skills}
          commands={commands}
          onClose={() => setPalette(false)}
          openChat={(id) => navigate(`/chats/${id}`)}
          openSkill={(id) => navigate(`/skills/${encodeURIComponent(id)}`)}
        />
      )}
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
