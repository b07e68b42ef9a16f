import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { activeRow, CLARIFICATION_REQUEST } from '#tasks';
import { startApp, type TestApp } from '../../support/app.js';

/**
 * The bundle index the pending list walks (`clarification_bundles`) is a maintained copy
 * of the one activeness rule. This walks random lifecycles through the public API — asks, answers
 * (resumed or queued), rejections, rolled-back resumes, cancels, new turns, completed turns, ended
 * sessions, archived tasks — and after every step compares the index with the rule, bundle by bundle.
 */

/** A small deterministic PRNG (mulberry32), so a failing walk can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Session {
  id: string;
  taskId: string;
  turnId: string;
  ended: boolean;
}

const STEPS = 160;
const SEED = 20261201;

describe('the bundle index stays in step with the activeness rule', () => {
  let t: TestApp;
  let refusing: http.Server;
  let refusingUrl: string;

  beforeAll(async () => {
    t = await startApp();
    refusing = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(503).end());
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/resume`;
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => refusing.close(resolve));
  });

  /** Every bundle whose index row disagrees with the rule (or is missing). */
  async function disagreements(): Promise<Array<{ pending_id: string; indexed: boolean | null; rule: boolean }>> {
    const { rows } = await t.db.query<{ pending_id: string; indexed: boolean | null; rule: boolean }>(
      `SELECT m.metadata->>'pending_id' AS pending_id, b.active AS indexed, bool_or(${activeRow('m')}) AS rule
         FROM task_session_messages m LEFT JOIN clarification_bundles b ON b.pending_id = m.metadata->>'pending_id'
        WHERE m.type = '${CLARIFICATION_REQUEST}'
        GROUP BY m.metadata->>'pending_id', b.active`,
    );
    return rows.filter((row) => row.indexed !== row.rule);
  }

  it(`${STEPS} random lifecycle steps through the API: the index equals the rule after every step (seed ${SEED})`, async () => {
    const next = random(SEED);
    const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(next() * items.length)];
    const api = () => request(t.baseUrl);
    const sessions: Session[] = [];
    const bundles: string[] = [];
    let asked = 0;

    async function newSession(): Promise<void> {
      const task = await api().post('/api/v1/tasks').send({ title: `walk ${sessions.length}` }).expect(201);
      const refuses = next() < 0.25;
      const session = await api()
        .post(`/api/v1/tasks/${task.body.id}/sessions`)
        .send(refuses ? { resume_url: refusingUrl } : {})
        .expect(201);
      await api().patch(`/api/v1/sessions/${session.body.id}`).send({ state: 'RUNNING' }).expect(200);
      const turn = await api().post(`/api/v1/sessions/${session.body.id}/turns`).expect(201);
      sessions.push({ id: session.body.id as string, taskId: task.body.id as string, turnId: turn.body.id as string, ended: false });
    }

    const actions: Array<{ name: string; weight: number; run: () => Promise<void> }> = [
      { name: 'new session', weight: 1, run: newSession },
      {
        name: 'ask',
        weight: 5,
        run: async () => {
          const session = pick(sessions.filter((candidate) => !candidate.ended));
          if (!session) return;
          asked += 1;
          const questions = [{ prompt: `question ${asked}?`, options: [{ label: 'yes' }, { label: 'no' }] }];
          const res = await api().post('/api/v1/clarification/request').send({ session_id: session.id, questions });
          if (res.status === 200) bundles.push(res.body.pending_id as string);
        },
      },
      {
        name: 'answer',
        weight: 4,
        run: async () => {
          const pendingId = pick(bundles);
          if (!pendingId) return;
          const body = next() < 0.3 ? { rejected: true, reject_reason: 'no' } : { answers: [{ question_id: 'q1', selected_options: ['q1_opt1'] }] };
          await api().post(`/api/v1/clarification/${pendingId}/respond`).send(body);
        },
      },
      {
        name: 'cancel',
        weight: 1,
        run: async () => {
          const pendingId = pick(bundles);
          if (pendingId) await api().post(`/api/v1/clarification/${pendingId}/cancel`);
        },
      },
      {
        name: 'new turn',
        weight: 2,
        run: async () => {
          const session = pick(sessions.filter((candidate) => !candidate.ended));
          if (!session) return;
          const turn = await api().post(`/api/v1/sessions/${session.id}/turns`);
          if (turn.status === 201) session.turnId = turn.body.id as string;
        },
      },
      {
        name: 'complete turn',
        weight: 1,
        run: async () => {
          const session = pick(sessions);
          if (session) await api().post(`/api/v1/sessions/${session.id}/turns/${session.turnId}/complete`);
        },
      },
      {
        name: 'end session',
        weight: 1,
        run: async () => {
          const session = pick(sessions.filter((candidate) => !candidate.ended));
          if (!session) return;
          session.ended = true;
          await api().patch(`/api/v1/sessions/${session.id}`).send({ state: pick(['COMPLETED', 'FAILED', 'CANCELLED']) });
        },
      },
      {
        name: 'archive task',
        weight: 0.5,
        run: async () => {
          const session = pick(sessions.filter((candidate) => !candidate.ended));
          if (!session) return;
          for (const sibling of sessions) if (sibling.taskId === session.taskId) sibling.ended = true;
          await api().post(`/api/v1/tasks/${session.taskId}/archive`);
        },
      },
    ];
    const total = actions.reduce((sum, action) => sum + action.weight, 0);

    await newSession();
    const performed: Record<string, number> = {};
    for (let step = 0; step < STEPS; step += 1) {
      let roll = next() * total;
      const action = actions.find((candidate) => (roll -= candidate.weight) < 0) ?? (actions[0]);
      await action.run();
      performed[action.name] = (performed[action.name] ?? 0) + 1;
      expect({ step, action: action.name, disagreements: await disagreements() }).toEqual({ step, action: action.name, disagreements: [] });
    }
    // The walk really went through every kind of step and left bundles in every state.
    expect(Object.keys(performed).sort()).toEqual(actions.map((action) => action.name).sort());
    const { rows } = await t.db.query<{ active: boolean; n: string }>(`SELECT active, count(*) AS n FROM clarification_bundles GROUP BY active`);
    expect(rows.map((row) => row.active).sort()).toEqual([false, true]);
  });
});
