import { isIP } from 'node:net';
import path from 'node:path';
import { checkTargetUrl, type OutboundSettings } from '#outbound';

export type AuthMode = 'disabled' | 'enabled';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /**
   * `DATABASE_LISTEN_URL`: a direct connection to PostgreSQL (never through a transaction pooler) for
   * what needs a session: LISTEN, the migrations and their session advisory lock. Unset ⇒ DATABASE_URL.
   */
  databaseListenUrl: string | undefined;
  /**
   * `DATABASE_PREPARED_STATEMENTS`: false behind a transaction pooler (PgBouncer) — every statement is
   * sent unnamed, and the pooled connections send no session settings at start-up (docs/operations.md).
   */
  databasePreparedStatements: boolean;
  dataDir: string;
  authMode: AuthMode;
  adminToken: string | undefined;
  logLevel: LogLevel;
  bodyLimitBytes: number;
  /** Longest a GET /clarification/:id/wait long poll blocks before answering 504. */
  waitTimeoutMs: number;
  /** How often a blocked ask_user_question_kandev call sends a progress notification. */
  askProgressIntervalMs: number;
  /** Longest an agent's ask blocks (and a live entry lives) before the agent is detached. */
  askTimeoutMs: number;
  /** Where answered-but-undelivered bundles resume their agent when the session has no resume_url. */
  resumeWebhookUrl: string | undefined;
  resumeTimeoutMs: number;
  /** Bound on a live waiter confirming a delivery before it is abandoned. */
  deliveryConfirmTimeoutMs: number;
  /** Connections the pool may open. */
  dbPoolSize: number;
  /** Bound on opening a database connection; beyond it the request fails with 503. */
  dbConnectTimeoutMs: number;
  /**
   * Bound on waiting for a free pooled connection when all are in use (a burst); beyond it the request
   * fails with 503. At least DB_CONNECT_TIMEOUT_MS: opening a connection keeps its own, shorter bound.
   */
  dbPoolAcquireTimeoutMs: number;
  /** Bound on one SQL statement (server side, and client side for a database that stopped answering). */
  dbStatementTimeoutMs: number;
  /** A transaction left idle this long is ended by PostgreSQL (its locks released). */
  dbIdleInTransactionTimeoutMs: number;
  /** How long a process's lease on the deliveries it owns lasts without a heartbeat. */
  leaseTtlMs: number;
  /** How often a process renews its lease (and sweeps deliveries whose owner's lease expired). */
  leaseHeartbeatMs: number;
  /** The URL browsers reach the server at: its origin is accepted on cookie-authenticated writes; https ⇒ `Secure` cookie. */
  publicUrl: string | undefined;
  /** AUTH_MODE=disabled on a non-loopback HOST was explicitly accepted (a warning is logged at every start). */
  allowUnauthenticatedNetwork: boolean;
  /** A browser session ends after this long without a request… */
  browserSessionIdleTimeoutMs: number;
  /** …and this long after sign-in, whatever its use. */
  browserSessionMaxAgeMs: number;
  /** Longest a client may take to send a whole request (headers and body); then its socket is closed. */
  requestTimeoutMs: number;
  /** Longest a client may take to send a request's headers. */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open between requests. */
  keepAliveTimeoutMs: number;
  /** Origins allowed to call the API from a browser (CORS); empty ⇒ CORS is off (no cross-origin reads). */
  corsOrigins: string[];
  /**
   * `ALLOWED_HOSTS`: the `Host` names served besides the loopback names and PUBLIC_URL's host (a
   * leading dot admits subdomains; no port admits any). Non-empty, or AUTH_MODE=disabled, ⇒ every
   * other `Host` is refused (DNS rebinding).
   */
  allowedHosts: string[];
  /**
   * `TRUST_PROXY`: which peers' `X-Forwarded-For` names the client whose address a request has
   * (`request.ip`, on which the address budgets are kept). false ⇒ the TCP peer, whatever it sends.
   */
  trustProxy: TrustProxy;
  graphql: GraphqlLimits;
  mcp: McpLimits;
  rateLimits: RateLimits;
  /** Where the rate limits are counted: in PostgreSQL, shared by every replica (default), or in this process's memory. */
  rateLimitStore: RateLimitStore;
  /** How often each process looks for bundles whose `expires_in_seconds` deadline passed. */
  deadlineSweepIntervalMs: number;
  /** Resolution attempts (the audit trail) are kept this many days. */
  auditRetentionDays: number;
  webhooks: WebhookSettings;
  /** Every outbound call: the resume webhooks and the event webhooks (docs/security.md, "Outbound calls"). */
  outbound: OutboundSettings;
  /** How long a resolution's signed receipt stays valid (its `exp` is `iat` plus this). */
  receiptTtlSeconds: number;
  /** Chat answering surfaces (docs/channels.md): each present only when its token is set. */
  chat: ChatSettings;
}

/** Slack and Telegram as answering surfaces; nothing of chat runs while both are absent. */
export interface ChatSettings {
  slack?: SlackSettings;
  telegram?: TelegramSettings;
}

export interface SlackSettings {
  botToken: string;
  signingSecret: string;
  /** The Web API base, ending in `/api/`: method names are appended. */
  apiUrl: string;
  /** Where a bundle goes when neither its assignees nor its workspace say otherwise. */
  defaultChannel?: string;
}

export interface TelegramSettings {
  botToken: string;
  /** The Bot API base: `bot<token>/<method>` is appended. */
  apiUrl: string;
  defaultChat?: string;
  /** Set: updates arrive at the webhook route, checked against this; unset: one replica long-polls getUpdates. */
  webhookSecret?: string;
}

/** Outbound webhooks (docs/api/webhooks.md). */
export interface WebhookSettings {
  /** Bound on one delivery attempt (connect, send, response status). */
  timeoutMs: number;
  /** Attempts per delivery before it is given up as failed. */
  maxAttempts: number;
  /** The first retry's delay; each later one doubles it (with jitter), up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** A subscription is disabled after this many consecutive failed attempts. */
  disableAfterFailures: number;
  /** The fallback poll of the outbox (a committed event wakes every process at once). */
  pollIntervalMs: number;
  /** Deliveries one process sends at a time. */
  concurrency: number;
}

export interface GraphqlLimits {
  /** Serve GraphiQL at /graphiql (default: on with auth disabled, off with auth enabled). */
  graphiql: boolean;
  /** The cost budget of one operation (docs/api/graphql.md: a list field costs its page size). */
  maxCost: number;
  /** Distinct root list fields (aliases count) one operation may select. */
  maxRootLists: number;
  /** Lexical tokens a document may have; larger documents are refused before they are parsed. */
  maxTokens: number;
}

export interface McpLimits {
  /** JSON-RPC messages one HTTP request may carry. */
  maxBatch: number;
  /** Rows the list calls of one HTTP request may ask for (a call counts its page size). */
  maxPageBudget: number;
}

/**
 * `true` trusts every peer (the leftmost X-Forwarded-For entry is the client), a number that many
 * hops nearest the server, a list the peers at those addresses or CIDR ranges (or proxy-addr's
 * names `loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = boolean | number | string[];

export const RATE_LIMIT_STORES = ['postgres', 'memory'] as const;
export type RateLimitStore = (typeof RATE_LIMIT_STORES)[number];

/** Requests per window, per client address or per identity (docs/configuration.md, "Rate limits"). */
export interface RateLimits {
  windowSeconds: number;
  signIn: number;
  failedCredentials: number;
  answers: number;
  lists: number;
  asks: number;
  /** Workspaces, tasks and sessions created, per identity. */
  creations: number;
  /** Receipt verifications (POST /api/v1/receipts/verify) per client address. */
  verifications: number;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`Invalid configuration: ${variable} ${detail}`);
  }
}

const HOUR = 3_600_000;

type Env = Record<string, string | undefined>;

function readString(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = readString(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer between ${min} and ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = readString(env, name);
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}

function readChoice<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = readString(env, name);
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase();
  if (!(choices as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${choices.join(', ')} (got "${raw}")`);
  }
  return value as T;
}

function readDatabaseUrl(env: Env, name: string): string | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a postgres:// or postgresql:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(name, 'must be a postgres:// or postgresql:// URL');
  }
  return raw;
}

function readHttpUrl(env: Env, name: string): string | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return raw;
  } catch {
    // reported below
  }
  throw new ConfigError(name, 'must be an http:// or https:// URL');
}

const LOOPBACK_HOSTS = new Set(['localhost', '::1', '0:0:0:0:0:0:0:1']);

/** Whether binding HOST exposes the server only to this machine. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return LOOPBACK_HOSTS.has(name) || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(name);
}

/**
 * AUTH_MODE=disabled serves every route to whoever can connect: refused on a non-loopback HOST
 * unless ALLOW_UNAUTHENTICATED_NETWORK=true says so (then warned about at every start).
 */
function checkNetworkExposure(config: Pick<AppConfig, 'authMode' | 'host' | 'allowUnauthenticatedNetwork'>): void {
  if (config.authMode !== 'disabled' || isLoopbackHost(config.host) || config.allowUnauthenticatedNetwork) return;
  throw new ConfigError(
    'AUTH_MODE',
    `is disabled while HOST=${config.host} is not a loopback address: every route would be served without credentials to the network. ` +
      'Set AUTH_MODE=enabled, bind HOST to a loopback address, or set ALLOW_UNAUTHENTICATED_NETWORK=true to accept it',
  );
}

/** The warning logged at every start while the server is knowingly open to the network without authentication. */
export function unauthenticatedNetworkWarning(config: AppConfig): string | undefined {
  if (config.authMode !== 'disabled' || isLoopbackHost(config.host)) return undefined;
  return `AUTH_MODE=disabled on HOST=${config.host} (ALLOW_UNAUTHENTICATED_NETWORK=true): every route is served without credentials to anyone who can reach this address`;
}

function checkTimeouts(config: Pick<AppConfig, 'headersTimeoutMs' | 'requestTimeoutMs'>): void {
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS', `must not exceed REQUEST_TIMEOUT_MS (${config.requestTimeoutMs})`);
  }
}

function checkBrowserSessionTimeouts(config: Pick<AppConfig, 'browserSessionIdleTimeoutMs' | 'browserSessionMaxAgeMs'>): void {
  if (config.browserSessionIdleTimeoutMs > config.browserSessionMaxAgeMs) {
    throw new ConfigError('BROWSER_SESSION_IDLE_TIMEOUT_MS', `must not exceed BROWSER_SESSION_MAX_AGE_MS (${config.browserSessionMaxAgeMs})`);
  }
}

/** RESUME_WEBHOOK_URL obeys the outbound policy like a session's resume_url: refused at start-up, not at the first answer. */
function checkResumeWebhook(config: Pick<AppConfig, 'resumeWebhookUrl' | 'outbound'>): void {
  if (config.resumeWebhookUrl === undefined) return;
  const checked = checkTargetUrl(config.resumeWebhookUrl, config.outbound.allowPrivateTargets);
  if ('refusal' in checked) throw new ConfigError('RESUME_WEBHOOK_URL', checked.refusal);
}

function checkWebhookRetries(config: Pick<AppConfig, 'webhooks'>): void {
  if (config.webhooks.retryBaseMs > config.webhooks.retryMaxMs) {
    throw new ConfigError('WEBHOOK_RETRY_BASE_MS', `must not exceed WEBHOOK_RETRY_MAX_MS (${config.webhooks.retryMaxMs})`);
  }
}

/** `CORS_ORIGINS`: a comma-separated list of `http(s)://host[:port]` origins, or `*` for any origin. */
function readCorsOrigins(env: Env): string[] {
  const raw = readString(env, 'CORS_ORIGINS');
  if (raw === undefined) return [];
  const origins = raw.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== origin) {
      throw new ConfigError('CORS_ORIGINS', `must be a comma-separated list of origins like https://app.example.com, or * (got "${origin}")`);
    }
  }
  return origins;
}

/** A `Host` name pattern: `name`, `name:port`, `.domain` (and its subdomains), an IPv4 address or `[IPv6]`, with an optional port. */
const HOST_PATTERN = /^(\.?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(:\d{1,5})?$/;

/** `ALLOWED_HOSTS`: a comma-separated list of host names as a `Host` header carries them (lower-cased). */
function readAllowedHosts(env: Env): string[] {
  const raw = readString(env, 'ALLOWED_HOSTS');
  if (raw === undefined) return [];
  const hosts = raw.split(',').map((host) => host.trim().toLowerCase()).filter((host) => host !== '');
  for (const host of hosts) {
    const port = /:(\d+)$/.exec(host)?.[1];
    if (!HOST_PATTERN.test(host) || (port !== undefined && Number(port) > 65535)) {
      throw new ConfigError('ALLOWED_HOSTS', `must be a comma-separated list of host names like parley.example.com, parley.internal:8080 or .example.com (got "${host}")`);
    }
  }
  return hosts;
}

const TRUSTED_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_PROXY_HOPS = 100;

/** An address, or a CIDR range whose prefix fits its address family. */
function isAddressOrRange(entry: string): boolean {
  if (TRUSTED_PROXY_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** `TRUST_PROXY`: unset or `false`, `true`, a hop count, or a comma-separated list of addresses and CIDR ranges. */
function readTrustProxy(env: Env): TrustProxy {
  const raw = readString(env, 'TRUST_PROXY');
  if (raw === undefined || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= MAX_PROXY_HOPS) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim().toLowerCase()).filter((entry) => entry !== '');
  const bad = entries.find((entry) => !isAddressOrRange(entry));
  if (entries.length === 0 || bad !== undefined) {
    throw new ConfigError(
      'TRUST_PROXY',
      `must be true, false, a hop count between 1 and ${MAX_PROXY_HOPS}, or a comma-separated list of proxy addresses and CIDR ranges like 10.0.0.2 or 172.30.80.0/24 (got "${bad ?? raw}")`,
    );
  }
  return entries;
}

function readAdminToken(env: Env): string | undefined {
  const raw = readString(env, 'ADMIN_TOKEN');
  if (raw !== undefined && raw.length < 24) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 24 characters long');
  }
  return raw;
}

function readPoolTimeouts(env: Env): { dbConnectTimeoutMs: number; dbPoolAcquireTimeoutMs: number } {
  const dbConnectTimeoutMs = readInteger(env, 'DB_CONNECT_TIMEOUT_MS', 3_000, 100, 10 * 60_000);
  const dbPoolAcquireTimeoutMs = readInteger(env, 'DB_POOL_ACQUIRE_TIMEOUT_MS', Math.max(10_000, dbConnectTimeoutMs), 100, 10 * 60_000);
  if (dbPoolAcquireTimeoutMs < dbConnectTimeoutMs) {
    throw new ConfigError('DB_POOL_ACQUIRE_TIMEOUT_MS', `must be at least DB_CONNECT_TIMEOUT_MS (${dbConnectTimeoutMs})`);
  }
  return { dbConnectTimeoutMs, dbPoolAcquireTimeoutMs };
}

function readLease(env: Env): { leaseTtlMs: number; leaseHeartbeatMs: number } {
  const leaseTtlMs = readInteger(env, 'LEASE_TTL_MS', 30_000, 1_000, HOUR);
  const leaseHeartbeatMs = readInteger(env, 'LEASE_HEARTBEAT_MS', 5_000, 100, HOUR);
  if (leaseHeartbeatMs * 2 > leaseTtlMs) {
    throw new ConfigError('LEASE_HEARTBEAT_MS', `must be at most half of LEASE_TTL_MS (${leaseTtlMs})`);
  }
  return { leaseTtlMs, leaseHeartbeatMs };
}
const PER_WINDOW_MAX = 1_000_000;

/** An API base with the trailing slash that appending a method name needs. */
function readApiBase(env: Env, name: string, fallback: string): string {
  const raw = readHttpUrl(env, name) ?? fallback;
  return raw.endsWith('/') ? raw : `${raw}/`;
}

function readChat(env: Env): ChatSettings {
  const chat: ChatSettings = {};
  const slackToken = readString(env, 'SLACK_BOT_TOKEN');
  const signingSecret = readString(env, 'SLACK_SIGNING_SECRET');
  if ((slackToken === undefined) !== (signingSecret === undefined)) {
    throw new ConfigError(slackToken === undefined ? 'SLACK_BOT_TOKEN' : 'SLACK_SIGNING_SECRET', 'Slack needs both SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET');
  }
  if (slackToken !== undefined && signingSecret !== undefined) {
    const defaultChannel = readString(env, 'SLACK_DEFAULT_CHANNEL');
    chat.slack = {
      botToken: slackToken,
      signingSecret,
      apiUrl: readApiBase(env, 'SLACK_API_URL', 'https://slack.com/api/'),
      ...(defaultChannel === undefined ? {} : { defaultChannel }),
    };
  }
  const telegramToken = readString(env, 'TELEGRAM_BOT_TOKEN');
  if (telegramToken !== undefined) {
    const defaultChat = readString(env, 'TELEGRAM_DEFAULT_CHAT');
    const webhookSecret = readString(env, 'TELEGRAM_WEBHOOK_SECRET');
    chat.telegram = {
      botToken: telegramToken,
      apiUrl: readApiBase(env, 'TELEGRAM_API_URL', 'https://api.telegram.org/'),
      ...(defaultChat === undefined ? {} : { defaultChat }),
      ...(webhookSecret === undefined ? {} : { webhookSecret }),
    };
  }
  return chat;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const authMode = readChoice<AuthMode>(env, 'AUTH_MODE', ['disabled', 'enabled'], 'disabled');
  const config: AppConfig = {
    port: readInteger(env, 'PORT', 3000, 0, 65535),
    host: readString(env, 'HOST') ?? '127.0.0.1',
    databaseUrl: readDatabaseUrl(env, 'DATABASE_URL'),
    databaseListenUrl: readDatabaseUrl(env, 'DATABASE_LISTEN_URL'),
    databasePreparedStatements: readBoolean(env, 'DATABASE_PREPARED_STATEMENTS', true),
    dataDir: path.resolve(readString(env, 'DATA_DIR') ?? './.parley'),
    authMode,
    adminToken: readAdminToken(env),
    logLevel: readChoice<LogLevel>(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    bodyLimitBytes: readInteger(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    waitTimeoutMs: readInteger(env, 'WAIT_TIMEOUT_MS', 60_000, 1, 24 * HOUR),
    askProgressIntervalMs: readInteger(env, 'ASK_PROGRESS_INTERVAL_MS', 20_000, 10, HOUR),
    askTimeoutMs: readInteger(env, 'ASK_TIMEOUT_MS', 2 * HOUR, 1, 7 * 24 * HOUR),
    resumeWebhookUrl: readHttpUrl(env, 'RESUME_WEBHOOK_URL'),
    resumeTimeoutMs: readInteger(env, 'RESUME_TIMEOUT_MS', 30_000, 1, HOUR),
    deliveryConfirmTimeoutMs: readInteger(env, 'DELIVERY_CONFIRM_TIMEOUT_MS', 5_000, 1, HOUR),
    dbPoolSize: readInteger(env, 'DB_POOL_SIZE', 20, 2, 1000),
    ...readPoolTimeouts(env),
    dbStatementTimeoutMs: readInteger(env, 'DB_STATEMENT_TIMEOUT_MS', 15_000, 100, HOUR),
    dbIdleInTransactionTimeoutMs: readInteger(env, 'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 15_000, 100, HOUR),
    ...readLease(env),
    graphql: {
      graphiql: readBoolean(env, 'GRAPHIQL', authMode === 'disabled'),
      maxCost: readInteger(env, 'GRAPHQL_MAX_COST', 60_000, 1, 100_000_000),
      maxRootLists: readInteger(env, 'GRAPHQL_MAX_ROOT_LISTS', 10, 1, 1000),
      maxTokens: readInteger(env, 'GRAPHQL_MAX_TOKENS', 5_000, 100, 1_000_000),
    },
    mcp: {
      maxBatch: readInteger(env, 'MCP_MAX_BATCH', 20, 1, 10_000),
      maxPageBudget: readInteger(env, 'MCP_MAX_PAGE_BUDGET', 1_000, 1, 1_000_000),
    },
    rateLimits: {
      windowSeconds: readInteger(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
      signIn: readInteger(env, 'RATE_LIMIT_SIGN_IN', 20, 1, PER_WINDOW_MAX),
      failedCredentials: readInteger(env, 'RATE_LIMIT_FAILED_CREDENTIALS', 30, 1, PER_WINDOW_MAX),
      answers: readInteger(env, 'RATE_LIMIT_ANSWERS', 600, 1, PER_WINDOW_MAX),
      lists: readInteger(env, 'RATE_LIMIT_LISTS', 1_200, 1, PER_WINDOW_MAX),
      asks: readInteger(env, 'RATE_LIMIT_ASKS', 600, 1, PER_WINDOW_MAX),
      creations: readInteger(env, 'RATE_LIMIT_CREATIONS', 120, 1, PER_WINDOW_MAX),
      verifications: readInteger(env, 'RATE_LIMIT_VERIFICATIONS', 600, 1, PER_WINDOW_MAX),
    },
    rateLimitStore: readChoice<RateLimitStore>(env, 'RATE_LIMIT_STORE', RATE_LIMIT_STORES, 'postgres'),
    deadlineSweepIntervalMs: readInteger(env, 'DEADLINE_SWEEP_INTERVAL_MS', 1_000, 10, HOUR),
    auditRetentionDays: readInteger(env, 'AUDIT_RETENTION_DAYS', 90, 1, 36_500),
    webhooks: {
      timeoutMs: readInteger(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 10 * 60_000),
      maxAttempts: readInteger(env, 'WEBHOOK_MAX_ATTEMPTS', 8, 1, 100),
      retryBaseMs: readInteger(env, 'WEBHOOK_RETRY_BASE_MS', 5_000, 1, HOUR),
      retryMaxMs: readInteger(env, 'WEBHOOK_RETRY_MAX_MS', HOUR, 1, 24 * HOUR),
      disableAfterFailures: readInteger(env, 'WEBHOOK_DISABLE_AFTER_FAILURES', 20, 1, 10_000),
      pollIntervalMs: readInteger(env, 'WEBHOOK_POLL_INTERVAL_MS', 1_000, 10, HOUR),
      concurrency: readInteger(env, 'WEBHOOK_CONCURRENCY', 8, 1, 1_000),
    },
    outbound: { allowPrivateTargets: readBoolean(env, 'OUTBOUND_ALLOW_PRIVATE_TARGETS', false) },
    receiptTtlSeconds: readInteger(env, 'RECEIPT_TTL_SECONDS', 3_600, 1, 366 * 24 * 3_600),
    chat: readChat(env),
    publicUrl: readHttpUrl(env, 'PUBLIC_URL'),
    allowUnauthenticatedNetwork: readBoolean(env, 'ALLOW_UNAUTHENTICATED_NETWORK', false),
    browserSessionIdleTimeoutMs: readInteger(env, 'BROWSER_SESSION_IDLE_TIMEOUT_MS', 12 * HOUR, 1000, 365 * 24 * HOUR),
    browserSessionMaxAgeMs: readInteger(env, 'BROWSER_SESSION_MAX_AGE_MS', 7 * 24 * HOUR, 1000, 365 * 24 * HOUR),
    requestTimeoutMs: readInteger(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, HOUR),
    headersTimeoutMs: readInteger(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, HOUR),
    keepAliveTimeoutMs: readInteger(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, HOUR),
    corsOrigins: readCorsOrigins(env),
    allowedHosts: readAllowedHosts(env),
    trustProxy: readTrustProxy(env),
  };
  checkTimeouts(config);
  checkWebhookRetries(config);
  checkResumeWebhook(config);
  checkBrowserSessionTimeouts(config);
  checkNetworkExposure(config);
  return config;
}
