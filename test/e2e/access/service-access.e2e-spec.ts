/**
 * The task and session services check the caller
 * themselves, so an entry point that forgets the route decorator (a new surface, a command) still
 * cannot read or change another user's task or session. Called here with no route in between: a
 * foreign caller gets exactly the error a missing resource gets, and nothing changes.
 */
import { AuthorizationError, AuthorizationErrorCode, userCaller } from '#authorization';
import { SessionService, SessionState, TaskService } from '#tasks';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, createUser } from '../../support/fixtures.js';

describe('TaskService and SessionService check the caller themselves', () => {
  let t: TestApp;
  let owner: ReturnType<typeof userCaller>;
  let stranger: ReturnType<typeof userCaller>;
  let fixture: Awaited<ReturnType<typeof createRunningSession>>;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    const alice = await createUser(t, 'alice');
    const bob = await createUser(t, 'bob');
    owner = userCaller(alice.id);
    stranger = userCaller(bob.id);
    fixture = await createRunningSession(t, { bearer: alice.token });
  });
  afterAll(async () => {
    await t.close();
  });

  /** What the call rejected with, as code and message (a missing resource's own error when denied). */
  async function refusal(call: Promise<unknown>): Promise<{ code: string; message: string }> {
    const error = await call.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    if (!(error instanceof AuthorizationError)) throw new Error(`expected an AuthorizationError, got ${String(error)}`);
    return { code: error.code, message: error.message };
  }

  const taskNotFound = { code: AuthorizationErrorCode.NotFound, message: 'task not found' };
  const sessionNotFound = { code: AuthorizationErrorCode.NotFound, message: 'session not found' };

  it('the owner is served; a stranger is refused exactly as for a task or session that does not exist', async () => {
    const tasks = t.app.get(TaskService);
    const sessions = t.app.get(SessionService);
    expect((await tasks.get(owner, fixture.taskId)).id).toBe(fixture.taskId);
    expect((await sessions.get(owner, fixture.sessionId)).id).toBe(fixture.sessionId);

    for (const caller of [stranger, owner]) {
      const missingTask = caller === owner ? 'no-such-task' : fixture.taskId;
      const missingSession = caller === owner ? 'no-such-session' : fixture.sessionId;
      expect(await refusal(tasks.get(caller, missingTask))).toEqual(taskNotFound);
      expect(await refusal(tasks.archive(caller, missingTask))).toEqual(taskNotFound);
      expect(await refusal(sessions.create(caller, missingTask, undefined))).toEqual(taskNotFound);
      expect(await refusal(sessions.get(caller, missingSession))).toEqual(sessionNotFound);
      expect(await refusal(sessions.setState(caller, missingSession, SessionState.Completed))).toEqual(sessionNotFound);
      expect(await refusal(sessions.startTurn(caller, missingSession))).toEqual(sessionNotFound);
      expect(await refusal(sessions.completeTurn(caller, missingSession, fixture.turnId))).toEqual(sessionNotFound);
      expect(await refusal(sessions.listMessages(caller, missingSession, undefined, undefined))).toEqual(sessionNotFound);
    }

    // Nothing the stranger attempted changed anything.
    const { rows } = await t.db.query<{ state: string; archived_at: Date | null; sessions: string; turns: string }>(
      `SELECT s.state, t.archived_at,
              (SELECT count(*) FROM task_sessions WHERE task_id = t.id)::text AS sessions,
              (SELECT count(*) FROM task_session_turns WHERE task_session_id = s.id AND completed_at IS NULL)::text AS turns
         FROM task_sessions s JOIN tasks t ON t.id = s.task_id WHERE s.id = $1`,
      [fixture.sessionId],
    );
    expect(rows).toEqual([{ state: 'RUNNING', archived_at: null, sessions: '1', turns: '1' }]);
  });
});
