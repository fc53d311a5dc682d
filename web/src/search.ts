// Search inside chats (`GET /api/search`): words in messages, replies,
// commands and their output, artifacts' titles. See docs/search.md.

import { useEffect, useState } from "preact/hooks";
import { call } from "./api";

export interface SearchPart {
  text: string;
  match?: boolean;
}

export interface SearchResult {
  chat: string;
  seq: number;
  at: string;
  kind: "message" | "reply" | "call" | "output" | "artifact" | "title";
  line: string;
  parts: SearchPart[];
}

export interface SearchResults {
  results: SearchResult[];
  total: number;
}

/** What each kind of match is, in words. */
export const KIND_WORDS: Record<SearchResult["kind"], string> = {
  message: "Message",
  reply: "Reply",
  call: "Command",
  output: "Output",
  artifact: "Artifact",
  title: "Name",
};

/** Where a result opens: its chat, at its event. */
export function resultPath(r: SearchResult): string {
  return `/chats/${r.chat}?at=${r.seq}`;
}

/** Asks Conch to read the chats now, so the first search is quick. */
export function warmSearch(): void {
  void call("GET", "/api/search?q=").catch(() => {});
}

/** The matches for `q` (after a short pause in typing); null before any. */
export function useContentSearch(q: string, limit = 30): { found: SearchResults | null; busy: boolean; error: string | null } {
  const [found, setFound] = useState<SearchResults | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const query = q.trim();
    if (!query) {
      setFound(null);
      setBusy(false);
      setError(null);
      return;
    }
    let live = true;
    setBusy(true);
    const timer = setTimeout(() => {
      call<SearchResults>("GET", `/api/search?q=${encodeURIComponent(query)}&limit=${limit}`)
        .then((r) => {
          if (!live) return;
          setFound(r);
          setError(null);
        })
        .catch((e: Error) => live && setError(e.message))
        .finally(() => live && setBusy(false));
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [q, limit]);
  return { found, busy, error };
}

/** A name or label as search reads it: without accents, width or case. */
export function fold(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/ß/g, "ss");
}

/** Whether each word of `query` begins a word of `text` (as the search
 *  inside chats reads them); scripts written without spaces match where
 *  the query's characters stand together. */
export function matchesWords(text: string, query: string): boolean {
  const have = fold(text);
  const words = have.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const want = fold(query).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const unspaced = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
  return want.length > 0 && want.every((w) => (unspaced.test(w) ? have.includes(w) : words.some((h) => h.startsWith(w))));
}
