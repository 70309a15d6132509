// Builds the embedded admin into web/frontend/dist (`npm run build`); the app
// serves it (web/admin/frontend.ts). App Bridge and Polaris come from
// Shopify's CDN at run time and are not bundled. Each page, settings section
// and language is its own chunk (dynamic imports), loaded when needed; the
// manifest lets the server preload the page's language.
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
    rollupOptions: {
      output: {
        // A language's catalogue is messages-<locale>-<hash>.js (tests and the server find it by that name).
        chunkFileNames: (chunk) => (chunk.facadeModuleId?.includes('/i18n/messages/admin/') ? 'assets/messages-[name]-[hash].js' : 'assets/[name]-[hash].js'),
      },
    },
  },
});
