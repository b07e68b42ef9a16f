/**
 * The committed API documents the client is built from: docs/api/openapi.json is what the
 * controllers build (the CLI's schema:write writes it) and what the server serves at
 * /docs/openapi.json, and the client's generated types are openapi-typescript's output for it —
 * each fails when stale, saying which command regenerates it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { buildOpenApiFile, OPENAPI_FILE } from '../../../apps/server/src/http/openapi-file.js';
import { startApp, type TestApp } from '../../support/app.js';

const GENERATED_TYPES = 'packages/client/src/core/generated/openapi.ts';

describe('the committed OpenAPI document and the client’s types', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it(`${OPENAPI_FILE} is what the controllers build and what the server serves (run \`npm run schema:write\` when this fails)`, async () => {
    const committed = await readFile(OPENAPI_FILE, 'utf8');
    expect(await buildOpenApiFile()).toBe(committed);
    const served = await request(t.baseUrl).get('/docs/openapi.json').expect(200);
    expect(served.body).toEqual(JSON.parse(committed));
  });

  it(`${GENERATED_TYPES} is openapi-typescript's output for the committed document (run \`npm run client:generate\` when this fails)`, async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), 'parley-openapi-')), 'openapi.ts');
    const cli = path.join('node_modules', 'openapi-typescript', 'bin', 'cli.js');
    await promisify(execFile)(process.execPath, [cli, OPENAPI_FILE, '-o', out]);
    expect(await readFile(out, 'utf8')).toBe(await readFile(GENERATED_TYPES, 'utf8'));
  });
});
