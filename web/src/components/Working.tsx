import { useEffect, useState } from "preact/hooks";
import type { Entry } from "../events";
import { toolName } from "../words";

/** What the chat is doing while a turn is open and nothing shows it: the
 *  engine thinking before its first word, or a tool running. The seconds
 *  appear after 3 s. Nothing when a question waits (its card says so) or
 *  text is arriving. */
export function Working(props: { openTurn: number | null; entries: Entry[]; streaming: boolean; waiting: boolean }) {
  const [since, setSince] = useState(() => Date.now());
  const [now, setNow] = useState(() => Date.now());
  const last = props.entries.length ? props.entries[props.entries.length - 1] : null;
  const tool = last?.type === "tool" && last.seq > (props.openTurn ?? Infinity) && last.entry.ok === undefined ? last.entry.tool : null;
  const key = `${props.openTurn}:${last?.seq ?? 0}`;
  useEffect(() => {
    setSince(Date.now());
    setNow(Date.now());
  }, [key]);
  const shown = props.openTurn !== null && !props.streaming && !props.waiting;
  useEffect(() => {
    if (!shown) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [shown, key]);
  if (!shown) return null;
  const secs = Math.floor((now - since) / 1000);
  const what = tool ? `Running ${toolName(tool)}…` : "Thinking…";
  return (
    <p class="working quiet" role="status">
      {what}
      {secs >= 3 ? ` ${secs} s` : ""}
    </p>
  );
}
