/**
 * Workspace members (docs/security.md, "Identity and access"): admin REST routes, GraphQL and the
 * visibility rule. A member sees the workspace's tasks and bundles exactly as its owner does, on every
 * list and by id; a non-member sees nothing of it (the 404 of a missing id). Adds are idempotent, an
 * unknown user is a 400 naming the field, only an admin manages members. Removing a member takes
 * effect on their next request and on their open subscriptions: one scoped to the workspace ends, an
 * unscoped one no longer receives the workspace's events; an open long poll on one of its bundles
 * ends with the 404 of a bundle never seen, and one the caller still sees goes on.
 */
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, createUser } from '../../support/fixtures.js';
import { gql, openStreams, subscribe } from '../../support/graphql.js';
import { ADMIN, addMember, removeMember } from '../../support/routing.js';

describe('workspace members', () => {
  let t: TestApp;
  let owner: { id: string; token: string };
  let member: { id: string; token: string };
  let workspaceId: string;
  let taskId: string;
  let sessionId: string;

  const ask = async (prompt: string) =>
    (
      await request(t.baseUrl)
        .post('/api/v1/clarification/request')
        .set('authorization', `Bearer ${owner.token}`)
        .send({ session_id: sessionId, questions: [{ prompt, options: [{ label: 'Yes' }, { label: 'No' }] }] })
        .expect(200)
    ).body.pending_id as string;

  const sees = async (token: string) => {
    const auth = `Bearer ${token}`;
    const tasks = await request(t.baseUrl).get('/api/v1/tasks').set('authorization', auth).expect(200);
    const workspaces = await request(t.baseUrl).get('/api/v1/workspaces').set('authorization', auth).expect(200);
    const bundles = await request(t.baseUrl).get('/api/v1/clarification').set('authorization', auth).expect(200);
    const task = await request(t.baseUrl).get(`/api/v1/tasks/${taskId}`).set('authorization', auth);
    return {
      task: (tasks.body.tasks as { id: string }[]).some((row) => row.id === taskId),
      workspace: (workspaces.body.workspaces as { id: string }[]).some((row) => row.id === workspaceId),
      bundles: (bundles.body.bundles as unknown[]).length,
      byId: task.status,
    };
  };

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    owner = await createUser(t, 'owner');
    member = await createUser(t, 'member');
    const fixture = await createRunningSession(t, { bearer: owner.token });
    ({ workspaceId, taskId, sessionId } = fixture);
    await ask('first');
  });

  afterAll(async () => {
    await t.close();
  });

  it('a user who is no member sees nothing of an owned workspace', async () => {
    expect(await sees(member.token)).toEqual({ task: false, workspace: false, bundles: 0, byId: 404 });
  });

  it('adds a member (idempotently), lists it, and the member sees what the owner sees', async () => {
    const added = await addMember(t, workspaceId, member.id);
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ workspace_id: workspaceId, user_id: member.id, name: 'member', added_at: expect.any(String), added: true });
    const again = await addMember(t, workspaceId, member.id);
    expect(again.body).toEqual({ ...added.body, added: false });
    const listed = await request(t.baseUrl).get(`/api/v1/admin/workspaces/${workspaceId}/members`).set('authorization', ADMIN).expect(200);
    expect(listed.body).toEqual({ workspace_id: workspaceId, members: [{ workspace_id: workspaceId, user_id: member.id, name: 'member', added_at: added.body.added_at }] });
    expect(await sees(member.token)).toEqual(await sees(owner.token));
    expect(await sees(member.token)).toEqual({ task: true, workspace: true, bundles: 1, byId: 200 });
  });

  it('refuses an unknown or missing user with a 400 naming the field, an unknown workspace with a 404, and non-admins with a 404', async () => {
    const unknown = await addMember(t, workspaceId, 'no-such-user');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^user_id names no user/);
    const missing = await addMember(t, workspaceId, undefined);
    expect(missing.status).toBe(400);
    expect(String(missing.body.error)).toMatch(/user_id/);
    expect((await addMember(t, 'no-such-workspace', member.id)).status).toBe(404);
    const asOwner = await request(t.baseUrl).post(`/api/v1/admin/workspaces/${workspaceId}/members`).set('authorization', `Bearer ${owner.token}`).send({ user_id: member.id });
    expect(asOwner.status).toBe(404);
    const members = await t.db.query(`SELECT user_id FROM workspace_members WHERE workspace_id = $1`, [workspaceId]);
    expect(members.rows).toEqual([{ user_id: member.id }]);
  });

  it('manages members through GraphQL too (admin only)', async () => {
    const other = await createUser(t, 'other');
    const added = await gql(t, `mutation($w: String!, $u: String!) { addWorkspaceMember(workspaceId: $w, userId: $u) { workspaceId userId changed } }`, { w: workspaceId, u: other.id }, TEST_ADMIN_TOKEN);
    expect(added.body.data).toEqual({ addWorkspaceMember: { workspaceId, userId: other.id, changed: true } });
    const listed = await gql<{ workspaceMembers: { userId: string; name: string }[] }>(t, `query($w: String!) { workspaceMembers(workspaceId: $w) { userId name } }`, { w: workspaceId }, TEST_ADMIN_TOKEN);
    expect(listed.body.data?.workspaceMembers.map((m) => m.name)).toEqual(['member', 'other']);
    const unknown = await gql(t, `mutation($w: String!) { addWorkspaceMember(workspaceId: $w, userId: "ghost") { changed } }`, { w: workspaceId }, TEST_ADMIN_TOKEN);
    expect(unknown.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/^userId names no user/), extensions: { code: 'VALIDATION_ERROR' } });
    const notAdmin = await gql(t, `query($w: String!) { workspaceMembers(workspaceId: $w) { userId } }`, { w: workspaceId }, owner.token);
    expect(notAdmin.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const removed = await gql(t, `mutation($w: String!, $u: String!) { removeWorkspaceMember(workspaceId: $w, userId: $u) { changed } }`, { w: workspaceId, u: other.id }, TEST_ADMIN_TOKEN);
    expect(removed.body.data).toEqual({ removeWorkspaceMember: { changed: true } });
  });

  it('removing a member ends their open /wait on the workspace\'s bundles (404), not one they still see', async () => {
    const leaving = await createUser(t, 'leaving');
    const staying = await createUser(t, 'staying');
    const elsewhere = await createRunningSession(t, { bearer: owner.token });
    for (const [workspace, user] of [
      [workspaceId, leaving.id],
      [workspaceId, staying.id],
      [elsewhere.workspaceId, staying.id],
    ]) expect((await addMember(t, workspace, user)).status).toBe(200);
    const pendingId = await ask('watched');
    const openWait = (token: string) =>
      fetch(`${t.baseUrl}/api/v1/clarification/${pendingId}/wait`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as Record<string, unknown>,
      }));
    const leavingWait = openWait(leaving.token);
    const stayingWait = openWait(staying.token);
    await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 2 ? true : undefined), 5_000, 'both waits attaching');

    // A removal elsewhere is re-checked and changes nothing here; the removal from this workspace ends the wait.
    expect((await removeMember(t, elsewhere.workspaceId, staying.id)).body.removed).toBe(true);
    expect((await removeMember(t, workspaceId, leaving.id)).body.removed).toBe(true);
    const ended = await leavingWait;
    expect(ended.status).toBe(404);
    expect(ended.body).toHaveProperty('code', 'NOT_FOUND');
    expect(t.app.get(WaiterStore).waiterCount(pendingId)).toBe(1);

    const answers = [{ question_id: 'q1', selected_options: ['q1_opt1'], custom_text: 'the answer' }];
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${owner.token}`).send({ answers }).expect(200);
    const answered = await stayingWait;
    expect(answered.status).toBe(200);
    expect(JSON.stringify(answered.body)).toContain('the answer');
  });

  it("removing a member takes effect on their next request and on their open subscriptions", async () => {
    const scoped = subscribe<{ questionEvents: { type: string; pendingId: string } }>(t, `subscription($w: String) { questionEvents(workspaceId: $w) { type pendingId } }`, {
      variables: { w: workspaceId },
      connectionParams: { authorization: `Bearer ${member.token}` },
    });
    const unscoped = subscribe<{ questionEvents: { type: string; pendingId: string } }>(t, `subscription { questionEvents { type pendingId } }`, {
      connectionParams: { authorization: `Bearer ${member.token}` },
    });
    try {
      await Promise.all([scoped.connected, unscoped.connected]);
      await openStreams(t, 2);
      const seen = await ask('second');
      // Only this test's bundles count: under load, a stream opened now may still carry an event the
      // previous test's bundles wrote just before it opened.
      const ofThisTest = (events: Array<{ questionEvents: { pendingId: string } }>, ids: string[]) =>
        events.map((event) => event.questionEvents.pendingId).filter((id) => ids.includes(id));
      await eventually(() => (ofThisTest(scoped.events, [seen]).length > 0 && ofThisTest(unscoped.events, [seen]).length > 0 ? true : undefined), 5_000, 'the ASKED event on both streams');
      expect(ofThisTest(scoped.events, [seen])).toEqual([seen]);

      const removed = await removeMember(t, workspaceId, member.id);
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ workspace_id: workspaceId, user_id: member.id, removed: true });
      expect((await removeMember(t, workspaceId, member.id)).body.removed).toBe(false);
      // The very next request: nothing of the workspace.
      expect(await sees(member.token)).toEqual({ task: false, workspace: false, bundles: 0, byId: 404 });
      await eventually(() => (scoped.completed || scoped.error !== undefined ? true : undefined), 5_000, 'the scoped subscription ending');

      // The unscoped one stays open, but the workspace's events no longer reach it.
      const unseen = await ask('third');
      const elsewhere = await createRunningSession(t, { bearer: member.token });
      const own = (
        await request(t.baseUrl)
          .post('/api/v1/clarification/request')
          .set('authorization', `Bearer ${member.token}`)
          .send({ session_id: elsewhere.sessionId, questions: [{ prompt: 'mine', options: [{ label: 'A' }, { label: 'B' }] }] })
          .expect(200)
      ).body.pending_id as string;
      await eventually(() => (ofThisTest(unscoped.events, [own]).length > 0 ? true : undefined), 5_000, 'the own bundle on the unscoped stream');
      expect(ofThisTest(unscoped.events, [seen, own, unseen])).toEqual([seen, own]);
    } finally {
      await scoped.close();
      await unscoped.close();
    }
  });
});
