import { jest } from '@jest/globals';
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, jwtVerify } from 'jose';
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { ReceiptService } from '#receipts';
import { startApp, type TestApp } from '../support/app.js';
import { eventually } from '../support/eventually.js';
import { createUser, freshBundle } from '../support/fixtures.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';
import { ANSWERS, submit, type Surface } from '../support/surfaces.js';

/**
 * The receipt of a cross-surface race: REST, GraphQL and MCP answer one bundle at once, in parallel
 * connections; the winner, both losers and the agent's live wait all get the very same receipt (same
 * jti, byte for byte), it verifies with jose against the published JWKS, and it cost one signature.
 */

const SURFACES: Surface[] = ['rest', 'graphql', 'mcp'];
const ROUNDS = 12;

describe('one receipt per resolution, the same for the winner and every loser', () => {
  let t: TestApp;
  let token: string;
  let mcp: McpConnection;
  let keys: ReturnType<typeof createLocalJWKSet>;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    token = (await createUser(t, 'racer')).token;
    mcp = await connectMcp(t.baseUrl, { bearer: token });
    keys = createLocalJWKSet((await (await fetch(`${t.baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet);
  });
  afterAll(async () => {
    await mcp.close();
    await t.close();
  });

  it(`${ROUNDS} rounds of three parallel surfaces and a live waiter: one receipt, one signature, each round`, async () => {
    const receipts = t.app.get(ReceiptService);
    const issue = jest.spyOn(receipts, 'issue');
    try {
      const jtis = new Set<string>();
      for (let round = 0; round < ROUNDS; round += 1) {
        const { pendingId, agentToken } = await freshBundle(t, { bearer: token });
        const waiting = request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).set('authorization', `Bearer ${agentToken}`).then((res) => res);
        await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined));
        const signedBefore = issue.mock.calls.length;

        const outcomes = await Promise.all(
          SURFACES.map(async (surface) => {
            const outcome = await submit(surface, { baseUrl: t.baseUrl, token, mcp }, pendingId, { kind: 'answer', answers: ANSWERS[surface] });
            if (outcome.kind !== 'resolved') throw new Error(`${surface} failed: ${JSON.stringify(outcome)}`);
            return [surface, outcome.envelope] as const;
          }),
        );
        const winners = outcomes.filter(([, envelope]) => envelope.claimed);
        expect(winners).toHaveLength(1);
        const [winnerSurface, winner] = winners[0];
        expect(typeof winner.receipt).toBe('string');
        for (const [, envelope] of outcomes) {
          expect(envelope).toHaveProperty('receipt');
          expect(envelope.receipt).toBe(winner.receipt);
        }
        const waited = await waiting;
        expect(waited.status).toBe(200);
        expect(waited.body.receipt).toBe(winner.receipt);
        const read = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${token}`).expect(200);
        expect(read.body.receipt).toBe(winner.receipt);

        const { payload } = await jwtVerify(winner.receipt as string, keys, { issuer: 'parley', subject: pendingId });
        expect(payload.surface).toBe(winnerSurface);
        expect(jtis.has(payload.jti as string)).toBe(false);
        jtis.add(payload.jti as string);
        // One Ed25519 signature for the resolution, whoever lost.
        expect(issue.mock.calls.length - signedBefore).toBe(1);

        const stored = await t.db.query<{ receipt: string | null }>(
          `SELECT metadata->>'receipt' AS receipt FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'`,
          [pendingId],
        );
        expect(stored.rows.map((row) => row.receipt)).toEqual(stored.rows.map(() => winner.receipt));
        expect(decodeJwt(winner.receipt as string).sub).toBe(pendingId);
      }
      expect(jtis.size).toBe(ROUNDS);
    } finally {
      issue.mockRestore();
    }
  });
});
