// A line found inside a chat, with the words that matched marked.

import type { SearchPart } from "../search";

export function FoundLine(props: { parts: SearchPart[] }) {
  return (
    <span class="found-line">
      {props.parts.map((p, i) => (p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </span>
  );
}
