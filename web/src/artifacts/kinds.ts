// What each kind is called where people read it.

export const KIND_WORDS: Record<string, string> = {
  html: "Page",
  markdown: "Document",
  svg: "Picture",
  mermaid: "Diagram",
  chart: "Chart",
  table: "Table",
};

export const kindWord = (kind: string): string => KIND_WORDS[kind] ?? kind;
