// What the page has fetched of artifacts, kept for as long as it is open.
// A version's text never changes (v<n> is kept exactly as it was), so each
// is fetched once and kept; an artifact's description is fetched again
// only when a new version of it is announced.

import { api, type Artifact, type ArtifactSummary, type DiffLine } from "../api";

const texts = new Map<string, Promise<string>>();
const described = new Map<string, Promise<Artifact>>();
const diffs = new Map<string, Promise<{ from: number | null; to: number; lines: DiffLine[] }>>();
const listeners = new Set<() => void>();
/** Deleted from this page: not asked for again. */
const gone = new Set<string>();

function kept<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let p = map.get(key);
  if (!p) {
    // A failure isn't kept: the next look asks again.
    p = load().catch((e: unknown) => {
      map.delete(key);
      throw e;
    });
    map.set(key, p);
  }
  return p;
}

/** A version's text: fetched the first time, then from memory. */
export function versionText(id: string, n: number): Promise<string> {
  return kept(texts, `${id}:${n}`, () => api.artifactText(id, n));
}

/** Whether a version's text is already here (drawn without a wait). */
export function hasText(id: string, n: number): boolean {
  return texts.has(`${id}:${n}`);
}

/** An artifact's description (its versions, whether it is pinned). */
export function describe(id: string): Promise<Artifact> {
  if (gone.has(id)) return Promise.reject(new Error("It was deleted."));
  return kept(described, id, () => api.artifact(id));
}

/** The lines of version `to` against the version kept before it. */
export function changes(id: string, to: number) {
  return kept(diffs, `${id}:${to}`, () => api.artifactDiff(id, null, to));
}

/** A new version, a pin or a delete: describe it again next time, and tell
 *  whoever shows artifacts (the sidebar's Pinned, an open panel). */
export function changed(id: string): void {
  described.delete(id);
  listeners.forEach((l) => l());
}

export function forget(id: string): void {
  gone.add(id);
  for (const map of [texts, diffs] as Map<string, unknown>[]) {
    for (const key of [...map.keys()]) if (key.startsWith(`${id}:`)) map.delete(key);
  }
  changed(id);
}

export function onChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Pinned artifacts, for the sidebar's Pinned. */
export function pinned(): Promise<ArtifactSummary[]> {
  return api.artifacts(true);
}

const showers = new Set<(chat: string, id: string) => void>();

/** Asks the open chat (if it is `chat`) to show an artifact beside it. */
export function showBeside(chat: string, id: string): void {
  showers.forEach((s) => s(chat, id));
}

export function onShowBeside(listener: (chat: string, id: string) => void): () => void {
  showers.add(listener);
  return () => showers.delete(listener);
}
