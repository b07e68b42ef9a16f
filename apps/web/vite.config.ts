import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The browser inbox: built into dist/web, which the server serves at `/` (apps/server/src/web-assets.ts). */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    reportCompressedSize: true,
  },
});
