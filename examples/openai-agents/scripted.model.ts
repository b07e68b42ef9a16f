import { type AgentInputItem, type Model, type ModelRequest, type ModelResponse, type StreamEvent, Usage } from '@openai/agents';

const CALL_ID = 'call-refund';

/** The output of the refund call, when the conversation already holds it (run, or rejected by a person). */
function refundResult(input: ModelRequest['input']): string | undefined {
  if (typeof input === 'string') return undefined;
  const result = input.find((item: AgentInputItem) => item.type === 'function_call_result' && item.callId === CALL_ID);
  if (!result || result.type !== 'function_call_result') return undefined;
  return typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
}

/**
 * A scripted `Model` for the Agents SDK (no network): first it calls `issue_refund`; once the input
 * holds that call's result — the tool ran, or a person rejected it — it answers with a message and
 * the run ends. It reads only its input, so a run restored from a stored RunState behaves the same.
 */
export class RefundingModel implements Model {
  getResponse(request: ModelRequest): Promise<ModelResponse> {
    const result = refundResult(request.input);
    if (result !== undefined) {
      return Promise.resolve({
        usage: new Usage(),
        output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `Refund step finished: ${result}` }] }],
      });
    }
    return Promise.resolve({
      usage: new Usage(),
      output: [{ type: 'function_call', callId: CALL_ID, name: 'issue_refund', status: 'completed', arguments: JSON.stringify({ order: 'A-1042', amount_eur: 129 }) }],
    });
  }

  // eslint-disable-next-line require-yield -- the example never streams
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    await Promise.resolve();
    throw new Error('the scripted model does not stream');
  }
}
