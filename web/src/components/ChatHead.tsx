import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, type ChatInfo } from "../api";
import { PhoneButtons } from "./TopBar";

/** The chat's name, which the owner can change: plain text, one line. */
function Title(props: { id: string; title: string | null; onChanged: () => void; onError: (e: unknown) => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState("");
  const input = useRef<HTMLInputElement>(null);
  // Escape: the name stays as it was (the box's blur mustn't save it).
  const cancelled = useRef(false);
  const shown = props.title || "New chat";
  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);
  const save = async () => {
    const t = text.trim();
    setEditing(false);
    if (cancelled.current || !t || t === props.title) return;
    try {
      await api.rename(props.id, t);
      props.onChanged();
    } catch (e) {
      props.onError(e);
    }
  };
  if (editing) {
    return (
      <input
        ref={input}
        class="title-input"
        aria-label="Chat name"
        maxLength={200}
        value={text}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
        onBlur={() => void save()}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            void save();
          } else if (e.key === "Escape") {
            e.preventDefault();
            cancelled.current = true;
            setEditing(false);
          }
        }}
      />
    );
  }
  return (
    <h1 class="chat-title">
      <button
        class="title-button"
        title="Rename this chat"
        onClick={() => {
          setText(props.title ?? "");
          cancelled.current = false;
          setEditing(true);
        }}
      >
        <span class="visually-hidden">Rename: </span>
        {shown}
      </button>
    </h1>
  );
}

/** Above the chat: its name, and Archive and Delete (asked once). On a
 *  phone it is the top bar, with ☰ and the search button. */
export function ChatHead(props: {
  id: string;
  info: ChatInfo | null;
  onChanged: () => void;
  onGone: (how: "deleted" | "archived") => void;
  onError: (e: unknown) => void;
  /** The chat used Conch's browser: the Browser panel can be opened. */
  onBrowser?: () => void;
}) {
  const [asking, setAsking] = useState(false);
  // On a phone the chat's actions fold behind ⋯, so its name has room.
  const [more, setMore] = useState(false);
  const keep = useRef<HTMLButtonElement>(null);
  // Esc keeps the chat, as "Keep it" does; listening from before the
  // confirm is painted, so an Esc pressed as it shows isn't lost.
  useLayoutEffect(() => {
    if (!asking) return;
    const esc = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        setAsking(false);
      }
    };
    document.addEventListener("keydown", esc);
    return () => document.removeEventListener("keydown", esc);
  }, [asking]);
  useLayoutEffect(() => {
    if (asking) keep.current?.focus();
  }, [asking]);
  const archived = props.info?.archived ?? false;
  return (
    <header class="chat-head">
      <PhoneButtons menu />
      <Title id={props.id} title={props.info?.title ?? null} onChanged={props.onChanged} onError={props.onError} />
      <PhoneButtons search />
      <button class="phone-only icon" aria-label="More for this chat" aria-expanded={more} onClick={() => setMore(!more)}>
        ⋯
      </button>
      <span class={`chat-actions${more ? " open" : ""}`}>
        {props.onBrowser && (
          <button
            class="small"
            onClick={() => {
              setMore(false);
              props.onBrowser!();
            }}
          >
            Browser
          </button>
        )}
        <button
          class="small"
          onClick={() =>
            api.archive(props.id, !archived).then(() => {
              props.onChanged();
              if (!archived) props.onGone("archived");
            }, props.onError)
          }
        >
          {archived ? "Bring back" : "Archive"}
        </button>
        <button
          class="small danger"
          onClick={() => {
            setMore(false);
            setAsking(true);
          }}
        >
          Delete
        </button>
      </span>
      {asking && (
        <div
          class="confirm"
          role="alertdialog"
          aria-label="Delete this chat?"
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              setAsking(false);
            }
          }}
        >
          <p>Delete this chat? It goes to the trash, which keeps it 30 days.</p>
          <button
            class="danger"
            onClick={() =>
              api.deleteChat(props.id).then(() => {
                setAsking(false);
                props.onGone("deleted");
              }, props.onError)
            }
          >
            Delete
          </button>
          <button ref={keep} onClick={() => setAsking(false)}>
            Keep it
          </button>
        </div>
      )}
    </header>
  );
}
