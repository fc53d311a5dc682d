// Loading a part of the page only when it is first shown (the panel,
// charts, the app page), without preact/compat: one promise per part.

import { useEffect, useState } from "preact/hooks";

export function lazyPart<T>(load: () => Promise<T>): () => T | null {
  let loaded: T | null = null;
  let loading: Promise<T> | null = null;
  return function useLoaded(): T | null {
    const [part, setPart] = useState<T | null>(loaded);
    useEffect(() => {
      if (part) return;
      loading ??= load().then((m) => (loaded = m));
      let live = true;
      loading.then(
        (m) => live && setPart(() => m),
        () => {
          loading = null;
        },
      );
      return () => {
        live = false;
      };
    }, []);
    return part;
  };
}
