/**
 * The browser inbox as `npm run build` leaves it in dist/web: self-contained (every
 * script and stylesheet is a hashed file of our own, nothing from another origin) and small — the
 * JavaScript a browser downloads stays under 80 KB gzipped.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { webAssetsRoot } from '../../../apps/server/src/http/web-assets.js';

const BUDGET_BYTES = 80 * 1024;

describe('the built browser inbox (dist/web)', () => {
  const root = webAssetsRoot();
  const html = readFileSync(path.join(root, 'index.html'), 'utf8');

  // Its Content-Security-Policy is the server's header (libs/common/src/http/security-headers.ts; test/e2e/operations/cors-security-headers.e2e-spec.ts).
  it('index.html loads only hashed assets from /assets/', () => {
    const references = [...html.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    const loaded = references.filter((reference) => !reference.startsWith('data:'));
    expect(loaded.length).toBeGreaterThanOrEqual(2);
    for (const reference of loaded) expect(reference).toMatch(/^\/assets\/[\w.-]+-[\w-]{8,}\.(js|css)$/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it(`ships under ${BUDGET_BYTES / 1024} KB of gzipped JavaScript`, () => {
    const scripts = readdirSync(path.join(root, 'assets')).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    const gzipped = scripts.reduce((total, name) => total + gzipSync(readFileSync(path.join(root, 'assets', name)), { level: 9 }).length, 0);
    expect(gzipped).toBeLessThan(BUDGET_BYTES);
  });
});
