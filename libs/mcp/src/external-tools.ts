import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Caller } from '../../authorization/src/index.js';
import { type PendingListService, type ResolveBundleService, serializeResolution } from '../../clarification/src/index.js';
import { type TaskService, taskView } from '../../tasks/src/index.js';
import { toolErrorFrom, toolResult } from './mcp-tool-result.js';

export const LIST_PENDING_TOOL = 'list_pending_questions_kandev';
export const ANSWER_TOOL = 'answer_question_kandev';
export const LIST_TASKS_TOOL = 'list_tasks_kandev';

export interface ExternalServices {
  pending: PendingListService;
  resolver: ResolveBundleService;
  tasks: TaskService;
}

/**
 * Loose on purpose (spec N9: only pending_id is required): a missing question_id or an unknown key
 * reaches ResolveBundle, which reports it as VALIDATION_ERROR naming the field, like REST does.
 */
const answerSchema = z.looseObject({
  question_id: z.string().optional().describe('A question_id from list_pending_questions_kandev'),
  selected_options: z.array(z.string()).optional().describe('option_id values of that question'),
  custom_text: z.string().optional().describe('Free text, at most 2000 characters'),
});

async function run(work: () => Promise<unknown>) {
  try {
    return toolResult(await work());
  } catch (error) {
    return toolErrorFrom(error);
  }
}

/** The external surface (spec S1–S3): discovery and answering for people's agents; never the agent's own ask. */
export function createExternalMcpServer(caller: Caller, services: ExternalServices): McpServer {
  const server = new McpServer({ name: 'parley', version: '1.0.0' });
  server.registerTool(
    LIST_PENDING_TOOL,
    {
      description:
        'List the clarification questions agents are blocked on, oldest first, across the workspaces you may see. ' +
        'Page with next_cursor; an empty next_cursor means there is no more.',
      inputSchema: {
        workspace_id: z.string().optional().describe('Only bundles of tasks in this workspace'),
        created_since: z.string().optional().describe('RFC3339; only bundles created at or after it'),
        cursor: z.string().optional().describe('next_cursor of the previous page'),
        limit: z.number().optional().describe('Bundles per page: default 50, at most 200'),
      },
    },
    (args) => run(() => services.pending.list(caller, args)),
  );
  server.registerTool(
    ANSWER_TOOL,
    {
      description:
        'Answer (one entry per question) or reject a pending clarification. Exactly one answer wins: ' +
        'claimed:false means another answer won and carries what it said.',
      inputSchema: {
        pending_id: z.string().describe('The bundle to resolve'),
        answers: z.array(answerSchema).optional().describe('One entry per question of the bundle'),
        rejected: z.boolean().optional().describe('true to decline the whole bundle'),
        reason: z.string().optional().describe('Why, when rejected (at most 2000 characters)'),
        reject_reason: z.string().optional().describe('Alias of reason (the REST body name)'),
      },
    },
    // Spec N1/N8b name the argument `reason`; `reject_reason` (the REST name) is accepted as an alias.
    ({ pending_id: pendingId, answers, rejected, reason, reject_reason: rejectReason }) =>
      run(async () =>
        serializeResolution(
          await services.resolver.resolve(caller, pendingId, { answers, rejected, reject_reason: reason ?? rejectReason }, 'mcp'),
        ),
      ),
  );
  server.registerTool(
    LIST_TASKS_TOOL,
    {
      description: 'List the tasks you may see, with task_pending_action and primary_session_pending_action (null when nothing blocks).',
      inputSchema: { workspace_id: z.string().optional().describe('Only tasks in this workspace') },
    },
    ({ workspace_id: workspaceId }) =>
      run(async () => ({ tasks: (await services.tasks.list(caller, workspaceId)).map(taskView) })),
  );
  return server;
}
