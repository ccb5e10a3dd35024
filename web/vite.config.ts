import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The web UI (hosted checkout page) is built into web/dist and served by the Fastify process:
// /assets/* from web/dist/assets, the pages from web/dist/index.html.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // No inline scripts or styles: the pages run under the API's strict Content-Security-Policy.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  logLevel: "warn",
});
