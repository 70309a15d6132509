// Builds the embedded admin into web/frontend/dist (`npm run build`); the app
// serves it (web/admin/frontend.ts). App Bridge and Polaris come from
// Shopify's CDN at run time and are not bundled.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
  },
});
