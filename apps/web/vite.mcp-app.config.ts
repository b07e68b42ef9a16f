import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The question's MCP App (libs/mcp/src/app): the inbox's bundle view as one classic script and one
 * stylesheet in dist/web/question-app, which the server serves and the app's page loads from Parley's
 * origin. A classic script (IIFE), not a module: an AI client's sandboxed frame loads it cross-origin,
 * and a module script would need CORS where a classic one needs only the resource policy the server gives it.
 * Built after the inbox (whose build empties dist/web).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: fileURLToPath(new URL('../../dist/web/question-app', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    lib: {
      entry: fileURLToPath(new URL('src/mcp-app/main.tsx', import.meta.url)),
      formats: ['iife'],
      name: 'ParleyQuestionApp',
      fileName: () => 'question.js',
      cssFileName: 'question',
    },
  },
});
