#!/usr/bin/env bash
# Builds the web pages into web/dist when their sources changed: npm ci
# when package-lock.json is newer than node_modules, then vite build.
# Everything comes from the npm registry at build time; nothing is fetched
# when Conch runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
newest_source="$(find src index.html vite.config.ts vite.mermaid.config.ts package-lock.json -type f -newer dist/index.html 2>/dev/null | head -1 || true)"
if [ ! -f dist/index.html ] || [ -n "$newest_source" ] || ! ls dist/assets/mermaid-frame-*.js >/dev/null 2>&1; then
  # The diagram renderer (Mermaid, for the sealed frame) is its own classic
  # script, built second into the same folder; index.html is written last
  # so it stays the newest file.
  npx vite build --logLevel warn
  npx vite build -c vite.mermaid.config.ts
  touch dist/index.html
fi
