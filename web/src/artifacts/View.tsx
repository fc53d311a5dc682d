// What an artifact looks like: Conch draws everything itself except pages,
// which run sealed off in their frame. Shared by the panel and the app page.

import { useEffect, useMemo, useState } from "preact/hooks";
import type { Artifact } from "../api";
import { renderMarkdown } from "../markdown";
import type { Asking } from "./Ask";
import { hasText, versionText } from "./cache";
import { Diagram, svgUrl } from "./Diagram";
import { lazyPart } from "./lazy";
import { PageFrame } from "./PageFrame";
import { Table } from "./Table";
import type { ChartSpec } from "./Chart";
import "./panel.css";

const useChart = lazyPart(() => import("./Chart"));

/** A version's text: from memory when it is here, else fetched once. */
export function useText(id: string, n: number, wanted = true): { text: string | null; error: string | null } {
  const [state, setState] = useState<{ key: string; text: string | null; error: string | null }>({ key: "", text: null, error: null });
  const key = `${id}:${n}`;
  useEffect(() => {
    if (!wanted || n < 1) return;
    let live = true;
    versionText(id, n).then(
      (text) => live && setState({ key, text, error: null }),
      (e: unknown) => live && setState({ key, text: null, error: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [key, wanted]);
  return state.key === key ? state : { text: null, error: null };
}

function ChartView({ text, title }: { text: string; title: string }) {
  const part = useChart();
  const spec = useMemo(() => {
    try {
      return JSON.parse(text) as ChartSpec;
    } catch {
      return null;
    }
  }, [text]);
  if (!spec) return <p class="error">This chart's spec isn't JSON Conch can read; its text is in the Code tab.</p>;
  if (!part) return <p class="quiet">Drawing the chart…</p>;
  return <part.Chart spec={spec} title={title} />;
}

function Document({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="markdown document" dangerouslySetInnerHTML={{ __html: html }} />;
}

export function View(props: { artifact: Artifact; n: number; onAsk: (a: Asking) => void }) {
  const { artifact, n } = props;
  const page = artifact.kind === "html";
  const { text, error } = useText(artifact.id, n, !page);
  const version = artifact.versions.find((v) => v.n === n);
  if (page) {
    return (
      <PageFrame
        id={artifact.id}
        n={n}
        title={artifact.title}
        navigates={Boolean(version?.navigates)}
        why={version?.why ?? []}
        onAsk={props.onAsk}
      />
    );
  }
  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (text === null) return <p class="quiet">{hasText(artifact.id, n) ? "" : "Loading…"}</p>;
  switch (artifact.kind) {
    case "markdown":
      return <Document text={text} />;
    case "svg":
      return <img class="picture" src={svgUrl(text)} alt={artifact.title} />;
    case "mermaid":
      return <Diagram text={text} title={artifact.title} />;
    case "chart":
      return <ChartView text={text} title={artifact.title} />;
    case "table":
      return <Table text={text} title={artifact.title} />;
  }
}
