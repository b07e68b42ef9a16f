import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The test host page's script (host.mjs with ext-apps' AppBridge) as one classic script, into PARLEY_HOST_OUT. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  publicDir: false,
  logLevel: 'warn',
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: process.env.PARLEY_HOST_OUT,
    emptyOutDir: true,
    reportCompressedSize: false,
    lib: { entry: fileURLToPath(new URL('host.mjs', import.meta.url)), formats: ['iife'], name: 'ParleyTestHost', fileName: () => 'host.js' },
  },
});
