// The owner's notifications on this page: GET /api/notifications streams
// every notice (which ones reach the owner, and which way, is decided in
// Conch, in one place). A question shows as a browser notification when
// the person allowed them and this page is hidden; when the question ends,
// its notification goes.

import { notifyOn } from "./notify";

export interface QuestionNotice {
  kind: "question";
  chat: string;
  ask: string;
  title: string | null;
  origin: string;
  others: string[];
  question: string;
  note: string | null;
  why: string[];
  always: boolean;
  nobodyThere: boolean;
}

export type Notice =
  | QuestionNotice
  | { kind: "settled"; chat: string; ask: string; outcome: string; by: string | null }
  | { kind: "routineDone"; chat: string; routine: string; says: string; failed: boolean };

const shown = new Map<string, Notification>();

/** Starts listening (`changed` is told of every notice); returns what stops it. */
export function listenForNotices(open: (chat: string) => void, changed: () => void = () => undefined): () => void {
  if (typeof EventSource === "undefined") return () => undefined;
  const source = new EventSource("/api/notifications");
  source.onmessage = (e) => {
    let notice: Notice;
    try {
      notice = JSON.parse(e.data) as Notice;
    } catch {
      return;
    }
    changed();
    const key = "ask" in notice ? `${notice.chat}/${notice.ask}` : notice.chat;
    if (notice.kind === "settled") {
      shown.get(key)?.close();
      shown.delete(key);
      return;
    }
    // One switch for this browser's notifications (Settings → Notifications).
    if (!notifyOn() || document.visibilityState === "visible") return;
    const [title, body] =
      notice.kind === "question"
        ? [
            notice.others.length ? `${notice.others.join(", ")}'s chat needs you` : "Conch needs you",
            `${notice.title || "New chat"}: ${notice.question}`,
          ]
        : [`Routine "${notice.routine}" ${notice.failed ? "stopped" : "finished"}`, notice.says];
    // A question's tag is the chat's, as "needs you" uses: one notification
    // a chat, replaced rather than stacked.
    const n = new Notification(title, { body: body.slice(0, 300), tag: notice.kind === "question" ? `conch-${notice.chat}` : key });
    n.onclick = () => {
      focus();
      open(notice.chat);
      n.close();
    };
    shown.set(key, n);
  };
  return () => source.close();
}
