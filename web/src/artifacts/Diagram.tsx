// A Mermaid diagram: drawn in the sealed renderer frame, shown here as an
// <img> with a data: URL, so nothing in it can run or fetch.

import { useEffect, useState } from "preact/hooks";
import { render } from "./renderer";

export function useDark(): boolean {
  const query = matchMedia("(prefers-color-scheme: dark)");
  const [dark, setDark] = useState(query.matches);
  useEffect(() => {
    const change = () => setDark(query.matches);
    query.addEventListener("change", change);
    return () => query.removeEventListener("change", change);
  }, []);
  return dark;
}

export const svgUrl = (svg: string) => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;

export function Diagram({ text, title }: { text: string; title: string }) {
  const dark = useDark();
  const [svg, setSvg] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setError(null);
    render(text, dark).then(
      (s) => live && setSvg(s),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [text, dark]);
  if (error) {
    return (
      <div class="diagram-error" role="alert">
        <p>Conch couldn't draw this diagram:</p>
        <pre>{error}</pre>
        <p class="quiet">Its text is in the Code tab.</p>
      </div>
    );
  }
  if (!svg) return <p class="quiet drawing">Drawing the diagram…</p>;
  return <img class="diagram" src={svgUrl(svg)} alt={title} />;
}
