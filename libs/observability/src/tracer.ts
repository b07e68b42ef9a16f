import { type Attributes, type Span, SpanStatusCode, trace } from '@opentelemetry/api';

/** The service's own spans: what no instrumentation can know (an ask, the claim transaction, a delivery to a live wait). */
const tracer = trace.getTracer('parley');

/**
 * Runs `work` inside a span named `name` (the active one while it runs, so the http and pg spans it
 * causes are its children); a throw marks the span as an error. Without the SDK started
 * (apps/server/src/tracing.ts) the API's tracer is a no-op: nothing is recorded or exported.
 */
export function traced<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
