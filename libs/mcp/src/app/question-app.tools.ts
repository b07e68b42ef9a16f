import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { z } from 'zod';
import type { Caller } from '#authorization';
import { bundleReadWire, bundleReportView, type BundleReadService, resolutionWire, type ResolveBundleService, serializeResolution } from '#clarification';
import { answerInput } from '../external/answer.schemas.js';
import { toolResult } from '../mcp-errors.js';
import { defineTool, type McpTool } from '../mcp-tool.js';
import { QUESTION_APP_URI } from './question-app.resource.js';

export const SHOW_QUESTION_TOOL = 'show_question';
export const APP_ANSWER_TOOL = 'answer_question_in_app';

/** A tool's `_meta` as ext-apps' registerAppTool writes it (the `ui` object and its legacy flat key). */
function appToolMeta(ui: { resourceUri: string; visibility?: Array<'model' | 'app'> }): Record<string, unknown> {
  let meta: Record<string, unknown> | undefined;
  // Only the declaration is wanted: ext-apps normalizes it; the low-level server publishes it.
  const capture = ((_name: string, config: { _meta?: Record<string, unknown> }) => {
    meta = config._meta;
    return undefined as never;
  }) as unknown as Parameters<typeof registerAppTool>[0]['registerTool'];
  registerAppTool({ registerTool: capture }, 'capture', { description: '', _meta: { ui } }, () => ({ content: [] }));
  if (meta === undefined) throw new Error('ext-apps declared no tool metadata');
  return meta;
}

/** The tools that show pending questions point at the app. */
export const SHOWS_QUESTION_APP = appToolMeta({ resourceUri: QUESTION_APP_URI });
/** The app's own submit: visible to the app only, hidden from the model. */
const APP_ONLY = appToolMeta({ resourceUri: QUESTION_APP_URI, visibility: ['app'] });

const showInput = z.strictObject({ pending_id: z.string().describe('The bundle to show (a pending_id from list_pending_questions_kandev)') });

export interface QuestionAppServices {
  reader: BundleReadService;
  resolver: ResolveBundleService;
}

/** The question as an MCP App (docs/api/mcp.md): its read, and its answer through the one resolver. */
export function questionAppTools(caller: Caller, services: QuestionAppServices): McpTool[] {
  return [
    defineTool({
      name: SHOW_QUESTION_TOOL,
      title: 'Show a question',
      description:
        'Show one pending question bundle to the person, to answer in place: its questions and options, the action an answer authorizes, ' +
        'and who must answer. Read-only for you: the person answers in the app.',
      input: showInput,
      output: bundleReadWire,
      annotations: { readOnlyHint: true, openWorldHint: false },
      meta: SHOWS_QUESTION_APP,
      run: async ({ pending_id: pendingId }) => toolResult(bundleReportView(await services.reader.getBundle(caller, pendingId))),
    }),
    defineTool({
      name: APP_ANSWER_TOOL,
      title: 'Answer in the app',
      description: 'The question app submits the person’s answer (or skip) here. Exactly one answer wins; a loser is told the winner’s answer.',
      input: answerInput,
      output: resolutionWire,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      meta: APP_ONLY,
      run: async ({ pending_id: pendingId, answers, rejected, reason, reject_reason: rejectReason }) =>
        toolResult(
          serializeResolution(
            await services.resolver.resolve(caller, pendingId, { answers, rejected, reject_reason: reason ?? rejectReason }, 'mcp_app'),
          ),
        ),
    }),
  ];
}
