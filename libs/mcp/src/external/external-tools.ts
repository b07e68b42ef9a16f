import { z } from 'zod';
import type { Caller } from '#authorization';
import { LIST_PAGE } from '#common';
import { type BundleReadService, pendingPageWire, type PendingListService, resolutionWire, type ResolveBundleService, serializeResolution } from '#clarification';
import { taskPageWire, type TaskService, taskView } from '#tasks';
import { toolResult } from '../mcp-errors.js';
import { defineTool, type McpTool } from '../mcp-tool.js';
import { questionAppTools, SHOWS_QUESTION_APP } from '../app/question-app.tools.js';
import { answerInput } from './answer.schemas.js';

export const LIST_PENDING_TOOL = 'list_pending_questions_kandev';
export const ANSWER_TOOL = 'answer_question_kandev';
export const LIST_TASKS_TOOL = 'list_tasks_kandev';

export interface ExternalServices {
  pending: PendingListService;
  resolver: ResolveBundleService;
  tasks: TaskService;
  reader: BundleReadService;
}

const listPendingInput = z.strictObject({
  workspace_id: z.string().optional().describe('Only bundles of tasks in this workspace'),
  created_since: z.string().optional().describe('RFC3339; only bundles created at or after it'),
  cursor: z.string().optional().describe('next_cursor of the previous page'),
  limit: z.number().optional().describe('Bundles per page: default 50, at most 200'),
});

const listTasksInput = z.strictObject({
  workspace_id: z.string().optional().describe('Only tasks in this workspace'),
  cursor: z.string().optional().describe('next_cursor of the previous page'),
  limit: z
    .number()
    .optional()
    .describe(`Tasks per page: default ${LIST_PAGE.defaultLimit}, an integer from 1 to ${LIST_PAGE.maxLimit} (anything else is refused, never clamped)`),
});


/** The external surface (rules S1–S3): discovery and answering for people's agents; never the agent's own ask. */
export function externalTools(caller: Caller, services: ExternalServices): McpTool[] {
  return [
    defineTool({
      name: LIST_PENDING_TOOL,
      title: 'List pending questions',
      description:
        'List the clarification questions agents are blocked on, oldest first, across the workspaces you may see. ' +
        'Page with next_cursor; an empty next_cursor means there is no more.',
      input: listPendingInput,
      output: pendingPageWire,
      annotations: { readOnlyHint: true, openWorldHint: false },
      meta: SHOWS_QUESTION_APP,
      run: async (args) => toolResult(await services.pending.list(caller, args)),
    }),
    defineTool({
      name: ANSWER_TOOL,
      title: 'Answer a pending question',
      description:
        'Answer (one entry per question) or reject a pending clarification. Exactly one answer wins: ' +
        'claimed:false means another answer won and carries what it said.',
      input: answerInput,
      output: resolutionWire,
      // Idempotent: repeating a call changes nothing more — a repeat loses and is told the winner's answer.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      // Rules N1/N8b name the argument `reason`; `reject_reason` (the REST name) is accepted as an alias.
      run: async ({ pending_id: pendingId, answers, rejected, reason, reject_reason: rejectReason }) =>
        toolResult(
          serializeResolution(
            await services.resolver.resolve(caller, pendingId, { answers, rejected, reject_reason: reason ?? rejectReason }, 'mcp'),
          ),
        ),
    }),
    defineTool({
      name: LIST_TASKS_TOOL,
      title: 'List tasks',
      description:
        'List the tasks you may see, oldest first, with task_pending_action and primary_session_pending_action (null when nothing blocks). ' +
        'Page with next_cursor; an empty next_cursor means there is no more.',
      input: listTasksInput,
      output: taskPageWire,
      annotations: { readOnlyHint: true, openWorldHint: false },
      run: async ({ workspace_id: workspaceId, cursor, limit }) => {
        const page = await services.tasks.list(caller, { workspaceId, cursor, limit });
        return toolResult({ tasks: page.tasks.map(taskView), next_cursor: page.next_cursor });
      },
    }),
    ...questionAppTools(caller, services),
  ];
}
