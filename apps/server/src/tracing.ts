import type { NodeSDK } from '@opentelemetry/sdk-node';

/** The running SDK, when tracing is configured. */
let sdk: NodeSDK | undefined;

/** Probes and scrapes: no trace each (an orchestrator's health checks would drown the answers). */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Tracing is on when an OTLP endpoint is named (the standard OpenTelemetry variables, docs/operations.md "Tracing"). */
function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** `parley` unless the operator named the service (OTEL_SERVICE_NAME, or service.name in OTEL_RESOURCE_ATTRIBUTES). */
function defaultServiceName(env: NodeJS.ProcessEnv): { serviceName?: string } {
  return env.OTEL_SERVICE_NAME || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '') ? {} : { serviceName: 'parley' };
}

/**
 * Starts the OpenTelemetry Node SDK (exporter, sampler, resource from the OTEL_* variables) with the
 * http and pg instrumentations, before the server's modules load: they patch those modules as they are
 * required. No ESM loader hook is needed: `pg` is CommonJS (required by TypeORM and by our `import`s
 * alike) and `node:http`'s default export is the module object the instrumentation patches
 * (test/e2e/operations/tracing.e2e-spec.ts). Without an endpoint nothing of the SDK is loaded, and
 * `@opentelemetry/api`'s spans are no-ops.
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!tracingConfigured(env)) return;
  const [{ NodeSDK: Sdk }, { HttpInstrumentation }, { PgInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  sdk = new Sdk({
    ...defaultServiceName(env),
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? '') }),
      // A statement outside any traced work (sweepers, LISTEN, the pool's health) is no trace of its own.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
}

/** How long shutdown waits for the last spans' export (a collector that is gone must not hold the exit). */
const FLUSH_BOUND_MS = 2_000;

/** Exports the spans still buffered (within FLUSH_BOUND_MS) and stops the SDK, at shutdown; nothing without tracing. */
export async function stopTracing(): Promise<void> {
  if (sdk === undefined) return;
  const stopping = sdk.shutdown().catch(() => undefined);
  sdk = undefined;
  await Promise.race([stopping, new Promise((resolve) => setTimeout(resolve, FLUSH_BOUND_MS))]);
}
