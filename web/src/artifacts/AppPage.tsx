// A pinned app on its own page, /apps/:id (ADR 0034 §4). It opens straight
// from what is stored (and what this page already fetched): nothing runs
// to show it. Refresh, for one made for a request, runs the Refresh chat
// under the guard; its questions are answered here like any other, and
// its new version is marked refreshed.

import { useEffect, useMemo, useState } from "preact/hooks";
import { api } from "../api";
import { pageApi } from "../pageApi";
import { QuestionCard } from "../components/QuestionCard";
import { fold } from "../events";
import { navigate } from "../router";
import { ChatStream, type Live } from "../stream";
import { Ask, type Asking } from "./Ask";
import { changed } from "./cache";
import { kindWord } from "./kinds";
import { byWords, useArtifact } from "./Panel";
import { View } from "./View";

function RefreshRun({ id, chat, onDone }: { id: string; chat: string; onDone: () => void }) {
  const [live, setLive] = useState<Live | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const stream = new ChatStream(chat, setLive);
    stream.start().catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
    return () => stream.close();
  }, [chat]);
  const folded = useMemo(() => fold(live?.events ?? []), [live?.events.length]);
  const made = folded.entries.some((e) => e.type === "artifact" && e.artifact === id);
  const ended = (live?.events ?? []).some((e) => e.type === "turn.ended") && folded.openTurn === null;
  useEffect(() => {
    if (made) changed(id);
  }, [made]);
  useEffect(() => {
    if (ended) onDone();
  }, [ended]);
  const last = [...folded.entries].reverse().find((e) => e.type === "reply" || e.type === "turn-error");
  return (
    <section class="refresh-run" aria-label="Refresh" aria-live="polite">
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!ended && (
        <p class="quiet">Refreshing… It reads the web for fresh data; anything that would send something out asks you first.</p>
      )}
      {folded.pending.map((q, i) => (
        <QuestionCard key={q.ask} q={q} first={i === 0} onAnswer={async (a) => void (await api.answer(chat, q.ask, a))} />
      ))}
      {ended && last && "text" in last && <p class="quiet refresh-said">{last.text}</p>}
    </section>
  );
}

export function AppPage({ id }: { id: string }) {
  const { artifact, error } = useArtifact(id);
  const [asking, setAsking] = useState<Asking | null>(null);
  const [refreshing, setRefreshing] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [said, setSaid] = useState("");
  useEffect(() => {
    setRefreshing(null);
    setAsking(null);
    setSaid("");
  }, [id]);
  if (error)
    return (
      <div class="page">
        <p class="error" role="alert">
          {error}
        </p>
      </div>
    );
  if (!artifact)
    return (
      <div class="page">
        <p class="quiet">Opening…</p>
      </div>
    );
  const newest = artifact.versions[artifact.versions.length - 1];
  const refresh = async () => {
    setSaid("");
    try {
      const { chat } = await pageApi.refresh(id);
      setRefreshing(chat);
      setRunning(true);
    } catch (e) {
      setSaid(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div class="app-page" data-artifact={id} data-version={artifact.latest}>
      <header class="app-head">
        <span class="badge">{kindWord(artifact.kind)}</span>
        <h1>{artifact.title}</h1>
        <span class={`quiet version-note${newest?.by === "refreshed" ? " refreshed" : ""}`}>
          Version {artifact.latest}
          {newest ? ` · ${byWords[newest.by]} ${new Date(newest.at).toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" })}` : ""}
        </span>
        {artifact.request && (
          <button class="primary" disabled={running} onClick={() => void refresh()}>
            {running ? "Refreshing…" : "Refresh"}
          </button>
        )}
        {artifact.chat && (
          <button onClick={() => navigate(`/chats/${artifact.chat}?artifact=${encodeURIComponent(id)}`)}>Open beside its chat</button>
        )}
        <button
          onClick={() =>
            void pageApi.pin(id, !artifact.pinned).then(
              (r) => {
                changed(id);
                setSaid(r.pinned ? "Pinned: it's under Pinned in the sidebar." : "Unpinned: it left the sidebar.");
              },
              (e: unknown) => setSaid(e instanceof Error ? e.message : String(e)),
            )
          }
        >
          {artifact.pinned ? "Unpin" : "Pin"}
        </button>
        <a class="button" href={`/api/artifacts/${encodeURIComponent(id)}/versions/${artifact.latest}/download`} download>
          Download
        </a>
      </header>
      <p class="panel-said" role="status" aria-live="polite">
        {said}
      </p>
      {refreshing && <RefreshRun id={id} chat={refreshing} onDone={() => setRunning(false)} />}
      {asking && <Ask asking={asking} onDone={() => setAsking(null)} />}
      <div class="app-body">
        <View key={`${id}:${artifact.latest}`} artifact={artifact} n={artifact.latest} onAsk={(a) => setAsking((now) => now ?? a)} />
      </div>
    </div>
  );
}
