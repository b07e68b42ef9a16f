import type { ProgressToken, RequestId } from '@modelcontextprotocol/server';
import type { AgentAskListener, ClarificationResponse } from '#clarification';
import { askResult, askToolResult } from './ask-result.js';
import { type ToolFailureContext, toolErrorFrom } from '../mcp-errors.js';
import type { McpExchange } from '../mcp-tool.js';

/**
 * A blocked ask_user_question_kandev call once detached from the SDK's server: the parked ask tells
 * it its progress and outcome, and it answers the call on its exchange — the progress notifications
 * and the result the tool's handler sent before. The exchange sends nothing once it has closed (the
 * client went away or cancelled): the call is aborted then, as the server aborts it.
 */
export class DetachedAskCall implements AgentAskListener {
  constructor(
    private readonly exchange: McpExchange,
    private readonly requestId: RequestId,
    private readonly progressToken: ProgressToken | undefined,
    /** The asked questions' ids as the bundle stores them (q1..qN where the agent gave none), in order. */
    private readonly questions: ReadonlyArray<{ id: string; multi_select: boolean }>,
    private readonly failure: ToolFailureContext,
  ) {}

  progress(tick: number, pendingId: string): void {
    if (this.progressToken === undefined) return;
    this.exchange.notify(this.requestId, {
      method: 'notifications/progress',
      params: { progressToken: this.progressToken, progress: tick, message: `waiting for an answer to ${pendingId}` },
    });
  }

  answered(response: ClarificationResponse): void {
    this.exchange.respond(this.requestId, askToolResult(askResult(response, this.questions), response.receipt));
  }

  failed(error: unknown): void {
    this.exchange.respond(this.requestId, toolErrorFrom(error, this.failure));
  }
}
