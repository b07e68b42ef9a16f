import type { Transport } from './transport.js';
import type { components } from './generated/openapi.js';
import type { SessionState } from './wire.types.js';

type Schemas = components['schemas'];
type Retried = <T>(call: () => Promise<T>, signal?: AbortSignal) => Promise<T>;

/**
 * The task projection an orchestrator keeps for its agents (workspaces, tasks, sessions, turns): a
 * bundle is asked on a session's current turn, so an agent running on its own files these first.
 */
export class ProjectionApi {
  constructor(
    private readonly transport: Transport,
    private readonly retried: Retried,
  ) {}

  createWorkspace(name: string, options: { signal?: AbortSignal } = {}): Promise<Schemas['WorkspaceDoc']> {
    const { signal } = options;
    return this.transport.send(() => this.transport.api.POST('/api/v1/workspaces', { body: { name }, signal }), signal);
  }

  createTask(input: { title: string; workspaceId?: string }, options: { signal?: AbortSignal } = {}): Promise<Schemas['TaskDoc']> {
    const { signal } = options;
    const body = { title: input.title, ...(input.workspaceId ? { workspace_id: input.workspaceId } : {}) };
    return this.transport.send(() => this.transport.api.POST('/api/v1/tasks', { body, signal }), signal);
  }

  /** A new session of the task; its `agent_token` is shown only here. */
  createSession(taskId: string, input: { resumeUrl?: string } = {}, options: { signal?: AbortSignal } = {}): Promise<Schemas['CreatedSessionDoc']> {
    const { signal } = options;
    const body = input.resumeUrl ? { resume_url: input.resumeUrl } : {};
    return this.transport.send(() => this.transport.api.POST('/api/v1/tasks/{id}/sessions', { params: { path: { id: taskId } }, body, signal }), signal);
  }

  setSessionState(sessionId: string, state: SessionState, options: { signal?: AbortSignal } = {}): Promise<Schemas['SessionDoc']> {
    const { signal } = options;
    return this.retried(
      () => this.transport.send(() => this.transport.api.PATCH('/api/v1/sessions/{id}', { params: { path: { id: sessionId } }, body: { state }, signal }), signal),
      signal,
    );
  }

  /** Starts a new current turn: bundles of older turns are superseded. */
  startTurn(sessionId: string, options: { signal?: AbortSignal } = {}): Promise<Schemas['StartedTurnDoc']> {
    const { signal } = options;
    return this.transport.send(() => this.transport.api.POST('/api/v1/sessions/{id}/turns', { params: { path: { id: sessionId } }, signal }), signal);
  }

  /**
   * A workspace, a task in it and a RUNNING session with a started turn: what an agent needs before
   * it can ask. Not retried (each call files new rows).
   */
  async openSession(input: { taskTitle: string; workspaceName?: string; resumeUrl?: string }, options: { signal?: AbortSignal } = {}) {
    const workspace = await this.createWorkspace(input.workspaceName ?? 'agents', options);
    const task = await this.createTask({ title: input.taskTitle, workspaceId: workspace.id }, options);
    const session = await this.createSession(task.id, input.resumeUrl ? { resumeUrl: input.resumeUrl } : {}, options);
    await this.setSessionState(session.id, 'RUNNING', options);
    const turn = await this.startTurn(session.id, options);
    return { workspaceId: workspace.id, taskId: task.id, sessionId: session.id, agentToken: session.agent_token, turnId: turn.id };
  }
}
