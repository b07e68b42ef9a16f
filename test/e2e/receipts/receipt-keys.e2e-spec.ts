import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import pg from 'pg';
import { createTestDatabase } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { runCli, startReplica } from '../../support/replicas.js';
import { killAllServers, type ServerProcess, stopServer } from '../../support/server-process.js';

/**
 * The receipt keys across processes: two replicas started at once on one database end with one key
 * set and sign with it; `parley keys:rotate` (the CLI, another process) adds a signing key — receipts
 * signed before still verify on every replica, new ones are signed with the new key; once a retired
 * key's publication ends, every replica stops publishing it without being told.
 */

const ACTION = { name: 'deploy', arguments: { env: 'prod' } };
const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];

async function json<T>(response: Promise<Response>): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await response;
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

function post(server: ServerProcess, path: string, body: unknown) {
  return json<Record<string, unknown>>(fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
}

describe('receipt keys shared by replicas, rotated by the CLI', () => {
  let databaseUrl: string;
  let replicas: ServerProcess[];
  let db: pg.Pool;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    // Both start at once on a database without keys: they race to create the first one.
    replicas = await Promise.all([startReplica(databaseUrl), startReplica(databaseUrl)]);
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });
  afterAll(async () => {
    await db.end();
    await Promise.all(replicas.map((server) => stopServer(server).catch(() => undefined)));
    await killAllServers();
  });

  /** A bundle asked on `asker`, answered on `answerer`: the winner's receipt. */
  async function receiptFrom(asker: ServerProcess, answerer: ServerProcess): Promise<{ pendingId: string; receipt: string }> {
    const fixture = await createRunningSession(asker);
    const asked = await post(asker, '/api/v1/clarification/request', { session_id: fixture.sessionId, questions: TWO_QUESTIONS, action: ACTION });
    expect(asked.status).toBe(200);
    const pendingId = asked.body.pending_id as string;
    const won = await post(answerer, `/api/v1/clarification/${pendingId}/respond`, { answers: ANSWERS });
    expect(won.status).toBe(200);
    expect(won.body.claimed).toBe(true);
    return { pendingId, receipt: won.body.receipt as string };
  }

  async function jwksOf(server: ServerProcess): Promise<JSONWebKeySet> {
    const res = await json<JSONWebKeySet>(fetch(`${server.baseUrl}/.well-known/jwks.json`));
    expect(res.status).toBe(200);
    return res.body;
  }

  it('two replicas started at once hold one key set and sign with it', async () => {
    const stored = await db.query<{ kid: string }>(`SELECT kid FROM receipt_keys`);
    expect(stored.rows).toHaveLength(1);
    const [a, b] = await Promise.all(replicas.map(jwksOf));
    expect(a).toEqual(b);
    expect(a.keys.map((key) => key.kid)).toEqual([stored.rows[0].kid]);

    const fromA = await receiptFrom(replicas[0], replicas[1]);
    const fromB = await receiptFrom(replicas[1], replicas[0]);
    for (const { pendingId, receipt } of [fromA, fromB]) {
      expect(decodeProtectedHeader(receipt).kid).toBe(stored.rows[0].kid);
      // Verified outside the service, with the JWKS of the replica that did not sign it.
      await jwtVerify(receipt, createLocalJWKSet(a), { subject: pendingId });
      for (const server of replicas) {
        expect((await post(server, '/api/v1/receipts/verify', { receipt, action: ACTION })).body).toMatchObject({ valid: true });
      }
    }
  });

  it('after keys:rotate old receipts still verify until they expire, and new ones use the new key', async () => {
    const before = await receiptFrom(replicas[0], replicas[1]);
    const oldKid = decodeProtectedHeader(before.receipt).kid as string;

    const rotated = await runCli(databaseUrl, ['keys:rotate', '--json']);
    expect(rotated.code).toBe(0);
    const { kid: newKid, retired } = JSON.parse(rotated.stdout) as { kid: string; retired: string };
    expect(retired).toBe(oldKid);
    expect(newKid).not.toBe(oldKid);

    // The retired key stays published for the receipts' lifetime (RECEIPT_TTL_SECONDS, 3600 s) and a margin.
    const keys = await db.query<{ kid: string; published_for: number }>(
      `SELECT kid, EXTRACT(EPOCH FROM publish_until - retired_at)::int AS published_for FROM receipt_keys WHERE retired_at IS NOT NULL`,
    );
    expect(keys.rows).toEqual([{ kid: oldKid, published_for: 3660 }]);

    for (const server of replicas) {
      // Every replica picks the new key up on the rotation's announcement; the old one stays published.
      await eventually(async () => {
        const set = await jwksOf(server);
        return set.keys.some((key) => key.kid === newKid) ? true : undefined;
      }, 20_000, 'the new key published');
      const set = await jwksOf(server);
      expect(set.keys.map((key) => key.kid).sort()).toEqual([newKid, oldKid].sort());
      await jwtVerify(before.receipt, createLocalJWKSet(set), { subject: before.pendingId });
      expect((await post(server, '/api/v1/receipts/verify', { receipt: before.receipt, action: ACTION })).body).toMatchObject({ valid: true });
    }

    // New receipts, answered on either replica, are signed with the new key.
    for (const [asker, answerer] of [[replicas[0], replicas[1]], [replicas[1], replicas[0]]] as const) {
      const after = await receiptFrom(asker, answerer);
      expect(decodeProtectedHeader(after.receipt).kid).toBe(newKid);
      for (const server of replicas) {
        expect((await post(server, '/api/v1/receipts/verify', { receipt: after.receipt, action: ACTION })).body).toMatchObject({ valid: true });
      }
    }
  });

  it('a retired key leaves every replica\'s JWKS when its publication ends, with no announcement then', async () => {
    const retired = await db.query<{ kid: string }>(`SELECT kid FROM receipt_keys WHERE retired_at IS NOT NULL`);
    expect(retired.rows).toHaveLength(1);
    const oldKid = retired.rows[0].kid;
    // Its publication now ends in 3 s; one announcement makes every replica read that, none follows.
    await db.query(`UPDATE receipt_keys SET publish_until = clock_timestamp() + interval '3 seconds' WHERE kid = $1`, [oldKid]);
    await db.query(`NOTIFY parley_receipt_keys`);
    const announcedAt = Date.now();
    for (const server of replicas) expect((await jwksOf(server)).keys.map((key) => key.kid)).toContain(oldKid);

    // Each replica, watched at once: it drops the key, and not before its publication ended (read from the database's clock).
    await Promise.all(
      replicas.map(async (server) => {
        await eventually(async () => ((await jwksOf(server)).keys.some((key) => key.kid === oldKid) ? undefined : true), 10_000, 'the retired key unpublished');
        expect(Date.now() - announcedAt).toBeGreaterThanOrEqual(2_500);
        expect((await jwksOf(server)).keys).toHaveLength(1);
      }),
    );
  });
});
