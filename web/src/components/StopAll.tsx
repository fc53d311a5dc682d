// Stop everything (issue 37): ⌘K's "Stop everything", and the bar that
// says Conch is stopped, with Resume. `conch stop` in a terminal and
// /stop from the owner's own chat app do the same (docs/web.md).

import { useCallback, useEffect, useState } from "preact/hooks";
import { call } from "../api";

export interface Stopped {
  at: string;
  by: string;
}

const BY: Record<string, string> = { owner: "from this page", terminal: "from a terminal" };

function byWords(by: string): string {
  if (BY[by]) return BY[by];
  if (by.startsWith("owner:")) return `from ${by[6].toUpperCase()}${by.slice(7)}`;
  return by;
}

/** Whether Conch is stopped (read now and every 5 s), and the two acts. */
export function useStopAll() {
  const [stopped, setStopped] = useState<Stopped | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    call<{ stopped: Stopped | null }>("GET", "/api/stop-all").then(
      (r) => setStopped(r.stopped),
      () => {},
    );
  }, []);
  useEffect(() => {
    load();
    const t = setInterval(load, 5000);
    return () => clearInterval(t);
  }, [load]);
  const stop = () =>
    call<{ stopped: Stopped | null }>("POST", "/api/stop-all").then(
      (r) => {
        setError(null);
        setStopped(r.stopped);
      },
      (e: Error) => setError(e.message),
    );
  const resume = () =>
    call<{ stopped: null }>("POST", "/api/resume").then(
      () => {
        setError(null);
        setStopped(null);
      },
      (e: Error) => setError(e.message),
    );
  return { stopped, error, stop, resume };
}

export function StoppedBar(props: { stopped: Stopped | null; error: string | null; onResume: () => void }) {
  if (!props.stopped && !props.error) return null;
  return (
    <div class="stopped-bar" role="status">
      {props.stopped && (
        <>
          <span>
            <strong>Conch is stopped</strong> ({byWords(props.stopped.by)}): nothing runs, no message and no routine, until you resume.
          </span>
          <button class="primary small" onClick={props.onResume}>
            Resume
          </button>
        </>
      )}
      {props.error && <span class="error">{props.error}</span>}
    </div>
  );
}
