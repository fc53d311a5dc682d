import { useEffect, useState } from "preact/hooks";
import { api, type Trashed } from "../api";
import { navigate } from "../router";
import "../pages.css";

/** Settings → Trash: deleted chats, each with Restore, until they go. */
export function TrashPage({ onRestored }: { onRestored: () => void }) {
  const [chats, setChats] = useState<Trashed[] | null>(null);
  const [days, setDays] = useState(30);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api.trash().then(
      (t) => {
        setChats(t.chats);
        setDays(t.keptDays);
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => {
    void load();
  }, []);
  const restore = async (id: string) => {
    setError(null);
    try {
      await api.restore(id);
      onRestored();
      navigate(`/chats/${id}`);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      void load();
    }
  };
  return (
    <div class="page trash">
      <h1>Trash</h1>
      <p class="quiet">Deleted chats stay here {days} days, then they're gone for good. Restore puts one back with everything in it.</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {chats === null && !error && <p class="quiet">Opening…</p>}
      {chats?.length === 0 && <p>The trash is empty.</p>}
      {chats && chats.length > 0 && (
        <ul class="trash-list">
          {chats.map((c) => (
            <li key={c.id}>
              <span class="title">{c.title || "Untitled chat"}</span>
              {c.deletedAt && <span class="quiet"> · deleted {new Date(c.deletedAt).toLocaleString()}</span>}{" "}
              <button class="small" onClick={() => void restore(c.id)} aria-label={`Restore ${c.title || "Untitled chat"}`}>
                Restore
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
