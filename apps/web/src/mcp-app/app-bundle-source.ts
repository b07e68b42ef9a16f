import type { App } from '@modelcontextprotocol/ext-apps';
import type { BundleSource } from '../bundle/bundle-source.js';
import type { Bundle, Resolution, ResolvedStatus } from '../inbox/inbox.types.js';
import type { RespondOutcome } from '../bundle/respond.api.js';
import { type BundleReport, bundleOfReport } from './report-bundle.mapper.js';

export const SHOW_TOOL = 'show_question';
export const ANSWER_TOOL = 'answer_question_in_app';

interface ToolOutcome {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: Array<{ type: string; text?: string }>;
}

/** A tool error's `{code, message}` (every Parley tool error is one). */
function toolError(result: ToolOutcome): { code: string; message: string } {
  const text = result.content?.find((block) => block.type === 'text')?.text ?? '{}';
  try {
    return JSON.parse(text) as { code: string; message: string };
  } catch {
    return { code: 'INTERNAL_ERROR', message: text };
  }
}

/** Where a VALIDATION_ERROR's message belongs, as the inbox places REST's 400 (respond.api.ts). */
function invalidField(message: string): Extract<RespondOutcome, { kind: 'invalid' }>['field'] {
  const question = /^answers\[(\d+)\]/.exec(message);
  if (question) return { question: Number(question[1]) };
  return message.startsWith('reject_reason') || message.startsWith('reason') ? 'reject_reason' : 'form';
}

/** The app's answer tool's result as the outcomes the bundle view knows (REST respond's, R10). */
function outcomeOf(result: ToolOutcome): RespondOutcome {
  if (result.isError) {
    const { code, message } = toolError(result);
    switch (code) {
      case 'VALIDATION_ERROR':
        return { kind: 'invalid', message, field: invalidField(message) };
      case 'NOT_FOUND':
        return { kind: 'not-found' };
      case 'CONFLICT':
        return { kind: 'inactive' };
      case 'NOT_ELIGIBLE':
      case 'FORBIDDEN':
        return { kind: 'not-eligible', message };
      case 'UNAUTHENTICATED':
        return { kind: 'signed-out' };
      default:
        return { kind: 'retryable', message };
    }
  }
  const envelope = result.structuredContent as { claimed: boolean; status: ResolvedStatus | 'pending'; response: Resolution; vote?: { votes: number; required_answers: number } };
  if (envelope.status === 'pending') return { kind: 'voted', votes: envelope.vote?.votes ?? 0, requiredAnswers: envelope.vote?.required_answers ?? 0 };
  return envelope.claimed ? { kind: 'won', status: envelope.status, response: envelope.response } : { kind: 'lost', status: envelope.status, response: envelope.response };
}

/** The bundle view's reads and answers as tool calls through the app's host, on the person's own connection to Parley. */
export function appBundleSource(app: App): BundleSource {
  return {
    async fetchBundle(pendingId: string): Promise<Bundle | undefined> {
      const result = (await app.callServerTool({ name: SHOW_TOOL, arguments: { pending_id: pendingId } })) as ToolOutcome;
      return result.isError ? undefined : bundleOfReport(result.structuredContent as unknown as BundleReport);
    },
    async respond(pendingId, body): Promise<RespondOutcome> {
      try {
        return outcomeOf((await app.callServerTool({ name: ANSWER_TOOL, arguments: { pending_id: pendingId, ...body } })) as ToolOutcome);
      } catch {
        return { kind: 'network' };
      }
    },
  };
}
