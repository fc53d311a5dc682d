import { useEffect, useState } from "preact/hooks";
import { api, type Skill } from "../api";
import { pageApi, type SkillFolder } from "../pageApi";
import { copy } from "../copy";
import { navigate } from "../router";
import { sourceName } from "../words";
import "../pages.css";

function Verdict({ v }: { v: Skill["verdict"] }) {
  return <span class={`badge verdict-${v}`}>{v === "clean" ? "Clean" : v === "caution" ? "Caution" : "Danger"}</span>;
}

function stateWords(s: Skill): string {
  return s.state.state === "on" ? "On" : s.state.says;
}

function SkillDetail({ id, onChange }: { id: string; onChange: () => void }) {
  const [skill, setSkill] = useState<Skill | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    pageApi.skill(id).then(setSkill, (e) => setError(e.message));
  }, [id]);
  if (error) return <p class="error">{error}</p>;
  if (!skill) return <p class="quiet">Reading the skill…</p>;
  const on = skill.state.state === "on";
  const act = async (f: () => Promise<Skill>) => {
    setError(null);
    try {
      setSkill(await f());
      setConfirming(false);
      onChange();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const p = skill.permissions;
  return (
    <article class="skill-detail">
      <h2>
        {skill.name} <Verdict v={skill.verdict} />
      </h2>
      <p>{skill.description}</p>
      <p class="quiet">
        From {sourceName(skill.source)} · {stateWords(skill)}
      </p>
      <h3>It says it needs</h3>
      <ul>
        <li>Commands: {p.commands.length ? p.commands.join(", ") : "none"}</li>
        <li>Files: {p.files}</li>
        <li>Web: {p.web}</li>
        <li>Connections: {p.integrations.length ? p.integrations.join(", ") : "none"}</li>
      </ul>
      <h3>What the scanner found</h3>
      {skill.findings.length === 0 ? (
        <p class="quiet">Nothing.</p>
      ) : (
        <ul class="findings">
          {skill.findings.map((f, i) => (
            <li key={i} class={`finding ${f.severity}`}>
              <p>{f.says}</p>
              <p class="quiet">
                {f.file}:{f.line}
              </p>
              <pre>{f.excerpt}</pre>
            </li>
          ))}
        </ul>
      )}
      {skill.unread.length > 0 && (
        <>
          <h3>Not read</h3>
          <ul>
            {skill.unread.map((u) => (
              <li key={u.path}>
                {u.path}: {u.why}
              </li>
            ))}
          </ul>
        </>
      )}
      <p class="quiet fingerprint">Fingerprint {skill.fingerprint}</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        {on ? (
          <button onClick={() => act(() => pageApi.disableSkill(skill.id))}>Turn off</button>
        ) : skill.verdict === "danger" || (skill.state.state === "off" && skill.state.why !== "turned-off" && skill.source !== "conch") ? (
          confirming ? (
            <>
              <p>Turn it on as it is now, at the fingerprint above? If it changes, it turns itself off again.</p>
              <button class="danger" onClick={() => act(() => pageApi.enableSkill(skill.id, skill.fingerprint))}>
                Turn on this version
              </button>
              <button onClick={() => setConfirming(false)}>Cancel</button>
            </>
          ) : (
            <button onClick={() => setConfirming(true)}>Turn on…</button>
          )
        ) : (
          <button class="primary" onClick={() => act(() => pageApi.enableSkill(skill.id))}>
            Turn on
          </button>
        )}
      </div>
    </article>
  );
}

/** Where a skill is added: Conch's own skills folder, with Copy. */
function Folder() {
  const [folders, setFolders] = useState<SkillFolder[] | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  useEffect(() => {
    pageApi.skillFolders().then(setFolders, () => setFolders([]));
  }, []);
  const own = folders?.find((f) => f.own);
  if (!own) return null;
  const others = folders?.filter((f) => !f.own && f.exists) ?? [];
  return (
    <section class="skills-folder" aria-labelledby="skills-folder-h">
      <h2 id="skills-folder-h">Add a skill from a folder</h2>
      <p>
        Put the skill's folder (with its SKILL.md) in Conch's skills folder. Conch scans it, and it stays off until you turn it on here.
      </p>
      <p class="folder-line">
        <code>{own.folder}</code>{" "}
        <button
          class="small"
          aria-label="Copy the skills folder's path"
          onClick={() =>
            copy(own.folder).then(
              () => setSaid("Copied"),
              (e) => setSaid(e instanceof Error ? e.message : "Couldn't copy"),
            ).finally(() => setTimeout(() => setSaid(null), 1500))
          }
        >
          {said ?? "Copy"}
        </button>
      </p>
      {others.length > 0 && (
        <p class="quiet">
          Also read: {others.map((f) => `${f.app} (${f.folder})`).join(", ")}. Skills from other apps are off until you turn them on.
        </p>
      )}
    </section>
  );
}

export function SkillsPage({ id }: { id?: string }) {
  const [skills, setSkills] = useState<Skill[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => api.skills().then(setSkills, (e) => setError(e.message));
  useEffect(() => {
    void load();
  }, []);
  return (
    <div class="page skills">
      <h1>Skills</h1>
      {error && <p class="error">{error}</p>}
      {id ? (
        <>
          <p>
            <a
              href="/skills"
              onClick={(e) => {
                e.preventDefault();
                navigate("/skills");
              }}
            >
              All skills
            </a>
          </p>
          <SkillDetail id={id} onChange={load} />
        </>
      ) : skills === null ? (
        <p class="quiet">Reading skills…</p>
      ) : skills.length === 0 ? (
        <p class="quiet">No skills yet.</p>
      ) : (
        <ul class="skill-list">
          {skills.map((s) => (
            <li key={s.id}>
              <a
                href={`/skills/${encodeURIComponent(s.id)}`}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(`/skills/${encodeURIComponent(s.id)}`);
                }}
              >
                <strong>{s.name}</strong> <Verdict v={s.verdict} />
                <span class="quiet"> {sourceName(s.source)}</span>
                <span class={`state ${s.state.state}`}>{stateWords(s)}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {!id && <Folder />}
    </div>
  );
}
