import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Vite names every file under assets/ by its content hash, so those may be cached for good. */
const HASHED_ASSETS = `${path.sep}assets${path.sep}`;

/** dist/web of this checkout, found from this file both as compiled (dist/apps/…) and as source (tests). */
export function webAssetsRoot(from = fileURLToPath(import.meta.url)): string {
  let directory = path.dirname(from);
  while (!existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`no package.json above ${from}`);
    directory = parent;
  }
  return path.join(directory, 'dist', 'web');
}

/**
 * The browser inbox (apps/web, built by `npm run build`) at `/`. Only the files the build produced
 * get routes (no wildcard), so every other path keeps the API's own 404.
 */
export async function registerWebAssets(fastify: FastifyInstance, root = webAssetsRoot()): Promise<void> {
  if (!existsSync(path.join(root, 'index.html'))) {
    fastify.log.warn({ root }, 'the browser inbox is not built (npm run build); GET / is a 404');
    return;
  }
  await fastify.register(fastifyStatic, {
    root,
    wildcard: false,
    decorateReply: false,
    dotfiles: 'ignore',
    cacheControl: false,
    setHeaders: (reply, filePath) => {
      const cacheControl = filePath.includes(HASHED_ASSETS) ? 'public, max-age=31536000, immutable' : 'no-cache';
      void reply.header('cache-control', cacheControl);
    },
  });
}
