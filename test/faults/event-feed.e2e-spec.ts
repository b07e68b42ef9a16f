/**
 * The question-event feed. A replay from `after: "0"` delivers every event exactly once
 * in increasing (numeric) id order, across digit boundaries; events written concurrently by two
 * replicas reach a subscriber on a third, in one increasing order, none missing; and an event is
 * written in the transaction of the change it reports, so a kill -9 never leaves a bundle without
 * its ASKED event.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../support/app.js';
import { QUIET_LEASE } from '../support/claim.js';
import { createTestDatabase, openPool } from '../support/database.js';
import { createRunningSession, TWO_QUESTIONS } from '../support/fixtures.js';
import { subscribe, type Subscription } from '../support/graphql.js';
import { startReplica } from '../support/replicas.js';
import { killAllServers, killServer, type ServerProcess } from '../support/server-process.js';

const EVENTS = `subscription Events($after: String) { questionEvents(after: $after) { id type pendingId } }`;
type EventPayload = { questionEvents: { id: string; type: string; pendingId: string } };

type Db = Pick<ReturnType<typeof openPool>, 'query'>;
type Server = { baseUrl: string };

/** The feed as stored: every id, in numeric order. */
async function storedIds(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT id::text AS id FROM question_events ORDER BY question_events.id`);
  return rows.map((row) => row.id);
}

function strictlyIncreasing(ids: readonly string[]): boolean {
  return ids.every((id, index) => index === 0 || BigInt(id) > BigInt(ids[index - 1]));
}

/** A question unlike any other, so each ask is a new bundle of the session. */
function distinct(label: string) {
  return [{ prompt: `${label}?`, options: [{ label: 'Yes' }, { label: 'No' }] }];
}

async function ask(server: Server, sessionId: string, questions: unknown = TWO_QUESTIONS): Promise<string> {
  const res = await request(server.baseUrl).post('/api/v1/clarification/request').send({ session_id: sessionId, questions }).expect(200);
  return res.body.pending_id as string;
}

/**
 * Every stored event reached the subscriber, once and in order: one more event (a sentinel) is made
 * after everything else, and the subscriber's list up to it must be exactly the stored feed.
 */
async function expectSubscriberSawTheFeed(db: Db, server: Server, sessionId: string, subscription: Subscription<EventPayload>): Promise<string[]> {
  const sentinel = await ask(server, sessionId, distinct('sentinel'));
  const stored = await storedIds(db);
  expect(stored.at(-1)).toBe((await db.query<{ id: string }>(`SELECT id::text AS id FROM question_events WHERE pending_id = $1`, [sentinel])).rows[0]?.id);
  await subscription.waitFor(stored.length, 20_000);
  const received = subscription.events.map((event) => event.questionEvents.id);
  expect(received).toEqual(stored);
  expect(strictlyIncreasing(received)).toBe(true);
  return received;
}

describe('replay from after "0" across digit boundaries', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ config: { ...QUIET_LEASE } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('135 events from before the txid positions (ids 1…135) and ≥ 120 new ones: every one exactly once, in numeric order', async () => {
    const anchor = await createRunningSession(t);
    const anchorId = await ask(t, anchor.sessionId);
    // Events a database carried over from the sequence ids (1, 2, … 135): one-, two- and three-digit ids.
    await t.db.query(
      `INSERT INTO question_events (id, type, pending_id, session_id, task_id, workspace_id)
       SELECT n, (ARRAY['ASKED','ANSWERED','REJECTED','CANCELLED','EXPIRED','SUPERSEDED','DETACHED'])[1 + n % 7], $1, $2, $3, $4
         FROM generate_series(1, 135) n`,
      [anchorId, anchor.sessionId, anchor.taskId, anchor.workspaceId],
    );
    // 60 bundles asked and resolved (cancelled or answered) through the API: 120 events more.
    for (let session = 0; session < 10; session += 1) {
      const fixture = await createRunningSession(t);
      const pendingIds: string[] = [];
      for (let bundle = 0; bundle < 6; bundle += 1) pendingIds.push(await ask(t, fixture.sessionId, distinct(`s${session} b${bundle}`)));
      // Cancelled but the last, which is answered (its resume's new turn would supersede any still open).
      const last = pendingIds.pop() as string;
      for (const pendingId of pendingIds) await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/cancel`).expect(200);
      await request(t.baseUrl).post(`/api/v1/clarification/${last}/respond`).send({ answers: [{ question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' }] }).expect(200);
    }
    const stored = await storedIds(t.db);
    expect(stored.length).toBeGreaterThanOrEqual(135 + 120);
    // Digit boundaries inside the replay: 9 → 10 and 99 → 100, then to the txid positions.
    expect(stored.slice(8, 11)).toEqual(['9', '10', '11']);
    expect(stored.slice(98, 101)).toEqual(['99', '100', '101']);
    expect(stored[135]?.length).toBeGreaterThan(3);

    const subscription = subscribe<EventPayload>(t, EVENTS, { variables: { after: '0' } });
    try {
      const received = await expectSubscriberSawTheFeed(t.db, t, anchor.sessionId, subscription);
      expect(new Set(received).size).toBe(received.length);
      expect(received.slice(0, 135)).toEqual(Array.from({ length: 135 }, (_, index) => String(index + 1)));
    } finally {
      await subscription.close();
    }
  });
});

describe('events of concurrent replicas, and a kill -9 right after asking', () => {
  let databaseUrl: string;
  let db: ReturnType<typeof openPool>;
  let writers: ServerProcess[];
  let reader: ServerProcess;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = openPool(databaseUrl, 4);
    [reader, ...writers] = await Promise.all([startReplica(databaseUrl), startReplica(databaseUrl), startReplica(databaseUrl)]);
  });
  afterAll(async () => {
    await killAllServers();
    await db.end();
  });

  it('two replicas writing at once, a subscriber on a third: every event, once, in one increasing order (compared with the table)', async () => {
    const subscription = subscribe<EventPayload>(reader, EVENTS, { variables: { after: '0' } });
    await subscription.connected;
    try {
      // Four workers per writer replica, each asking and resolving bundles on its own session.
      const work = writers.flatMap((writer, replica) =>
        Array.from({ length: 4 }, async (_, worker) => {
          const fixture = await createRunningSession(writer);
          for (let round = 0; round < 6; round += 1) {
            const pendingId = await ask(writer, fixture.sessionId, distinct(`r${replica} w${worker} #${round}`));
            if (round % 3 === 0) await request(writer.baseUrl).post(`/api/v1/clarification/${pendingId}/cancel`).expect(200);
            else await request(writer.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: [{ question_id: 'q1', selected_options: ['q1_opt2'], custom_text: '' }] }).expect(200);
          }
          return fixture.sessionId;
        }),
      );
      const [sessionId] = await Promise.all(work);
      const received = await expectSubscriberSawTheFeed(db, writers[0], sessionId, subscription);
      expect(received.length).toBeGreaterThanOrEqual(2 * 4 * 6 * 2);
    } finally {
      await subscription.close();
    }
  });

  it('asks through a replica killed with kill -9 right after the first answers: every bundle row that exists has its ASKED event', async () => {
    const victim = writers[1];
    const sessions = await Promise.all(Array.from({ length: 4 }, () => createRunningSession(victim)));
    const asks = sessions.flatMap((fixture, session) =>
      Array.from({ length: 12 }, (_, index) =>
        request(victim.baseUrl)
          .post('/api/v1/clarification/request')
          .send({ session_id: fixture.sessionId, questions: distinct(`crash s${session} #${index}`) })
          .then(
            (res) => res.status,
            () => 0,
          ),
      ),
    );
    await Promise.race(asks);
    await killServer(victim);
    const statuses = await Promise.all(asks);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);

    const sessionIds = sessions.map((fixture) => fixture.sessionId);
    const { rows } = await db.query<{ pending_id: string; asked: number; indexed: number }>(
      `SELECT p.pending_id,
              (SELECT count(*)::int FROM question_events e WHERE e.pending_id = p.pending_id AND e.type = 'ASKED') AS asked,
              (SELECT count(*)::int FROM clarification_bundles b WHERE b.pending_id = p.pending_id) AS indexed
         FROM (SELECT DISTINCT m.metadata->>'pending_id' AS pending_id FROM task_session_messages m
                WHERE m.task_session_id = ANY($1) AND m.type = 'clarification_request') p`,
      [sessionIds],
    );
    // Every ask that got a 200 is there; whatever exists has exactly its one ASKED event and its index row.
    expect(rows.length).toBeGreaterThanOrEqual(statuses.filter((status) => status === 200).length);
    expect(rows.filter((row) => row.asked !== 1 || row.indexed !== 1)).toEqual([]);
    const { rows: orphans } = await db.query(
      `SELECT e.pending_id FROM question_events e WHERE e.session_id = ANY($1)
          AND NOT EXISTS (SELECT 1 FROM task_session_messages m WHERE m.metadata->>'pending_id' = e.pending_id)`,
      [sessionIds],
    );
    // …and no event reports an ask that did not commit.
    expect(orphans).toEqual([]);
  });
});
