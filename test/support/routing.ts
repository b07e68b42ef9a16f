import request from 'supertest';
import { TEST_ADMIN_TOKEN, type TestApp } from './app.js';
import { createRunningSession, createUser, type SessionFixture } from './fixtures.js';

export const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;

export interface Person {
  id: string;
  token: string;
  name: string;
}

/** A team: the workspace's owner and its members (each a user with a token), and a stranger who is neither. */
export interface Team {
  owner: Person;
  members: Person[];
  stranger: Person;
  fixture: SessionFixture;
}

async function person(t: Pick<TestApp, 'baseUrl'>, name: string): Promise<Person> {
  return { ...(await createUser(t, name)), name };
}

export async function addMember(t: Pick<TestApp, 'baseUrl'>, workspaceId: string, userId: unknown): Promise<request.Response> {
  return request(t.baseUrl).post(`/api/v1/admin/workspaces/${workspaceId}/members`).set('authorization', ADMIN).send({ user_id: userId });
}

export async function removeMember(t: Pick<TestApp, 'baseUrl'>, workspaceId: string, userId: string): Promise<request.Response> {
  return request(t.baseUrl).delete(`/api/v1/admin/workspaces/${workspaceId}/members/${userId}`).set('authorization', ADMIN);
}

/** A workspace owned by its owner with `memberCount` members, and a running session in it. */
export async function team(t: Pick<TestApp, 'baseUrl'>, memberCount: number, prefix = 'team'): Promise<Team> {
  const owner = await person(t, `${prefix}-owner`);
  const members = await Promise.all(Array.from({ length: memberCount }, (_, index) => person(t, `${prefix}-member-${index}`)));
  const stranger = await person(t, `${prefix}-stranger`);
  const fixture = await createRunningSession(t, { bearer: owner.token });
  for (const member of members) expect((await addMember(t, fixture.workspaceId, member.id)).status).toBe(200);
  return { owner, members, stranger, fixture };
}

/** Asks `questions` on the session with `routing`, as the workspace's owner; returns the response. */
export function askRouted(t: Pick<TestApp, 'baseUrl'>, team: Team, questions: unknown[], routing: unknown, extra: Record<string, unknown> = {}): request.Test {
  return request(t.baseUrl)
    .post('/api/v1/clarification/request')
    .set('authorization', `Bearer ${team.owner.token}`)
    .send({ session_id: team.fixture.sessionId, questions, routing, ...extra });
}

export const ONE_QUESTION = [
  {
    id: 'db',
    prompt: 'Choose a database',
    options: [
      { option_id: 'postgres', label: 'Postgres' },
      { option_id: 'sqlite', label: 'SQLite' },
      { option_id: 'duckdb', label: 'DuckDB' },
    ],
  },
];

export const PICK = (option: string, text = '') => [{ question_id: 'db', selected_options: [option], custom_text: text }];

export function respondAs(t: Pick<TestApp, 'baseUrl'>, token: string, pendingId: string, body: Record<string, unknown>): request.Test {
  return request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${token}`).send(body);
}
