import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

// Everything the page needs is served by the gateway itself: no CDN, no
// inline script (the gateway's CSP forbids it), hashed file names so
// assets can be cached.
export default defineConfig({
  plugins: [preact()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: "es2022",
  },
});
