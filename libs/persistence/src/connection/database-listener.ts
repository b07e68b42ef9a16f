import { setTimeout as delay } from 'node:timers/promises';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { connectionSettings } from './data-source.factory.js';
import { Database } from './database.js';

type Handler = (payload: string) => void;

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;
/** How often the connection is probed; a database that stopped answering is noticed within ~3 probe timeouts. */
const PROBE_EVERY_MS = 2_000;
const PROBE_TIMEOUT_MS = 1_500;
/** How long shutdown waits for the connection to close in order: a hung server never acknowledges it. */
const CLOSE_TIMEOUT_MS = 1_000;
const CHANNEL = /^[a-z_]+$/;

/**
 * The one LISTEN connection of the process, and its view of whether the database is reachable.
 * Consumers register channels and are told when the connection came back (so they re-read what a
 * missed NOTIFY would have told them). One reconnect loop with capped exponential backoff and jitter;
 * never more than one connection.
 */
@Injectable()
export class DatabaseListener implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('DatabaseListener');
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly reconnected = new Set<() => void>();
  private client: pg.Client | undefined;
  /** The client the probe timer probes: connected and listening. */
  private probed: pg.Client | undefined;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private closing = false;

  private readonly stopWatching: () => void;
  private readonly stopWatchingLosses: () => void;

  constructor(@Inject(Database) private readonly database: Database) {
    // Something else (a connection the pool could not open) saw the database go: probe now, so a
    // false alarm is cleared in one round trip and a real outage is confirmed as soon as possible.
    this.stopWatching = database.reachability.onUnreachable(() => {
      if (this.client && this.client === this.probed && !this.closing) this.probe(this.client);
    });
    // An idle pooled connection the database ended (a restart, a failover, a terminated backend): probe now too.
    // Once for a burst: a failover ends every idle connection at once.
    let probedAt = 0;
    this.stopWatchingLosses = database.reachability.onConnectionLost(() => {
      if (!this.client || this.client !== this.probed || this.closing || Date.now() - probedAt < PROBE_TIMEOUT_MS) return;
      probedAt = Date.now();
      this.probe(this.client);
    });
  }

  /**
   * False from a detected loss until the database answers again (the process's DatabaseReachability):
   * requests that need the database fail fast meanwhile — the pool refuses connections.
   */
  get isReachable(): boolean {
    return this.database.reachability.isReachable;
  }

  async onModuleInit(): Promise<void> {
    await this.connect();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.stopWatching();
    this.stopWatchingLosses();
    clearTimeout(this.retryTimer);
    clearInterval(this.probeTimer);
    const client = this.client;
    this.client = undefined;
    if (client) await Promise.race([client.end().catch(() => undefined), delay(CLOSE_TIMEOUT_MS, undefined, { ref: false })]);
  }

  /**
   * The listening connection while it is up, for a process's own serial reader (the event feed's): its
   * reads then never queue behind requests for a pooled connection, so event lag stays flat under sustained load (docs/benchmarks.md, "Sustained load"). Read-only
   * use; a read on it waits for the probe at most.
   */
  get connection(): pg.Client | undefined {
    return this.isReachable ? this.client : undefined;
  }

  /** Calls `handler` with each NOTIFY payload on `channel`; the returned function stops it. */
  listen(channel: string, handler: Handler): () => void {
    if (!CHANNEL.test(channel)) throw new Error(`invalid channel name ${channel}`);
    let handlers = this.handlers.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.handlers.set(channel, handlers);
      // Once connected (not only while reachable: a pool-side alarm must not lose a channel).
      if (this.client && this.client === this.probed) this.client.query(`LISTEN ${channel}`).catch((error: unknown) => this.lost(this.client, error));
    }
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  /** Calls `handler` each time the connection is re-established after a loss. */
  onReconnect(handler: () => void): () => void {
    this.reconnected.add(handler);
    return () => this.reconnected.delete(handler);
  }

  private async connect(): Promise<void> {
    // A direct connection (LISTEN needs a session): its start-up settings reach the server, pooler or not.
    const settings = connectionSettings({ ...this.database.poolOptions, preparedStatements: true });
    const client = new pg.Client({ connectionString: this.database.directUrl, ...settings, application_name: 'parley-listener' });
    client.on('notification', (message) => this.dispatch(message.channel, message.payload ?? ''));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    this.client = client;
    await client.connect();
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    if (this.client !== client) return;
    const recovering = this.attempt > 0;
    this.database.reachability.markReachable();
    this.attempt = 0;
    this.probed = client;
    clearInterval(this.probeTimer);
    this.probeTimer = setInterval(() => this.probe(client), PROBE_EVERY_MS);
    this.probeTimer.unref();
    if (recovering) {
      this.logger.log({ msg: 'database reachable again' });
      for (const handler of this.reconnected) this.safely(handler);
    }
  }

  /**
   * A probe that timed out is sent once more before the connection counts as lost: on a loaded
   * machine a stalled event loop can fire the timeout although the answer already arrived. An answer
   * clears an unreachable mark made before the probe was sent (not one made while it was on its way).
   */
  private probe(client: pg.Client): void {
    const reachability = this.database.reachability;
    const once = () => {
      const mark = reachability.mark;
      return client.query({ text: 'SELECT 1', query_timeout: PROBE_TIMEOUT_MS } as pg.QueryConfig).then(() => reachability.confirmedSince(mark));
    };
    once()
      .catch(() => once())
      .catch((error: unknown) => this.lost(client, error));
  }

  private dispatch(channel: string, payload: string): void {
    for (const handler of this.handlers.get(channel) ?? []) this.safely(() => handler(payload));
  }

  /** One loss per client: the client is dropped and exactly one reconnect is scheduled. */
  private lost(client: pg.Client | undefined, error: unknown): void {
    if (!client || client !== this.client || this.closing) return;
    this.client = undefined;
    this.probed = undefined;
    clearInterval(this.probeTimer);
    this.database.reachability.markUnreachable(error);
    client.removeAllListeners('notification');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (this.attempt === 0) this.logger.warn({ msg: 'database connection lost', err: String(error) });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closing || this.retryTimer) return;
    const backoff = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.closing) return;
      this.connect().catch((error: unknown) => {
        const failed = this.client;
        if (failed) this.lost(failed, error);
        else this.scheduleReconnect();
      });
    }, backoff / 2 + Math.random() * (backoff / 2));
    this.retryTimer.unref();
  }

  private safely(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.logger.error({ msg: 'listener handler failed', err: String(error) });
    }
  }
}
