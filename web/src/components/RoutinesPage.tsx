import { useEffect, useState } from "preact/hooks";
import { type Mode, type Routine } from "../api";
import "../pages.css";
import { pageApi } from "../pageApi";
import { navigate } from "../router";

// Routines: chats that run on a schedule with nobody there. What a run
// asks waits for you (here, in Activity, and in your linked Telegram chat).
export function RoutinesPage() {
  const [list, setList] = useState<Routine[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [schedule, setSchedule] = useState("every weekday at 8:00");
  const [task, setTask] = useState("");
  const [mode, setMode] = useState<Mode | "">("");
  const load = () => pageApi.routines().then(setList, (e) => setError(e.message));
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
  return (
    <div class="page routines">
      <h1>Routines</h1>
      <p class="quiet">
        A routine is a chat that runs by itself on a schedule, in your time zone. Nobody is there to choose, so once it has read
        something, what it wants to run waits for you, even in Full trust. Times missed while the computer slept run once.
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ul class="routines-list">
        {(list ?? []).map((r) => (
          <li key={r.id}>
            <div>
              <strong>{r.name}</strong> <span class="quiet">{r.schedule}</span>
              {r.mode && <span class="quiet"> · {r.mode}</span>}
            </div>
            <div class="task">{r.task}</div>
            {(r.carries.length > 0 || r.askedBy.length > 0) && (
              <p class="carries quiet">
                Made in a chat that{" "}
                {[
                  ...r.carries.map((c) => c),
                  ...r.askedBy.map((p) => `had ${p}'s words in it`),
                ].join("; ")}
                . Each run starts marked with it, so what it wants to run waits for you.
              </p>
            )}
            <div class="row">
              <button class="small" onClick={() => act(pageApi.runRoutine(r.id).then((x) => navigate(`/chats/${x.chat}`)))}>
                Run now
              </button>
              <button
                class="small danger"
                onClick={() => {
                  if (confirm(`Remove the routine "${r.name}"? Its runs' chats stay.`)) void act(pageApi.removeRoutine(r.id));
                }}
              >
                Remove
              </button>
            </div>
            {r.runs.length > 0 && (
              <details>
                <summary>
                  {r.runs.length} run{r.runs.length === 1 ? "" : "s"}
                </summary>
                <ul>
                  {r.runs.map((c) => (
                    <li key={c}>
                      <a
                        href={`/chats/${c}`}
                        onClick={(e) => {
                          e.preventDefault();
                          navigate(`/chats/${c}`);
                        }}
                      >
                        {c}
                      </a>
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </li>
        ))}
        {list && list.length === 0 && <li class="quiet">No routines yet.</li>}
      </ul>
      <form
        class="new-routine"
        onSubmit={(e) => {
          e.preventDefault();
          void act(
            pageApi.addRoutine({ schedule: schedule.trim(), task: task.trim(), ...(mode ? { mode } : {}) }).then(() => setTask("")),
          );
        }}
      >
        <h2>New routine</h2>
        <label>
          When
          <input
            aria-label="When"
            value={schedule}
            placeholder='every weekday at 8:00, or cron like "0 8 * * 1-5"'
            onInput={(e) => setSchedule((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          What to do each time
          <textarea aria-label="What to do each time" value={task} onInput={(e) => setTask((e.target as HTMLTextAreaElement).value)} />
        </label>
        <label>
          Mode
          <select aria-label="Mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as Mode | "")}>
            <option value="">The default</option>
            <option value="ask">Ask</option>
            <option value="edits">Accept edits</option>
            <option value="auto">Auto</option>
            <option value="full">Full trust</option>
          </select>
        </label>
        <button type="submit" class="primary" disabled={!task.trim() || !schedule.trim()}>
          Make the routine
        </button>
      </form>
    </div>
  );
}
