import { defineConfig } from "vite";

// The diagram renderer: Mermaid and a few lines around it, as one classic
// script (no modules, no chunks of its own). It runs only inside the
// sealed frame /api/artifacts/mermaid-frame, whose origin is opaque: a
// module script would need CORS, a classic one doesn't. Built after the
// app into the same dist/assets, with a hashed name the gateway looks up.
export default defineConfig({
  // Mermaid's size and Vite's preload helper (unused once everything is
  // one script) only warn; errors still show.
  logLevel: "error",
  build: {
    chunkSizeWarningLimit: 8000,
    outDir: "dist",
    emptyOutDir: false,
    sourcemap: false,
    target: "es2022",
    assetsInlineLimit: 0,
    modulePreload: false,
    copyPublicDir: false,
    rolldownOptions: {
      input: "src/mermaid-frame/main.ts",
      output: {
        format: "iife",
        entryFileNames: "assets/mermaid-frame-[hash].js",
        codeSplitting: false,
      },
    },
  },
});
