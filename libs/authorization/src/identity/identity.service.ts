import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { INPUT_LIMITS, unstorableTextReason } from '#common';
import { APP_CONFIG, type AppConfig } from '#config';
import { AuthorizationError, AuthorizationErrorCode } from '../authorization.errors.js';
import { AccessRepository } from '../access/access.repository.js';
import { BrowserSessionRepository } from './browser-session.repository.js';
import { ADMIN_CALLER, agentCaller, type Caller, type SessionAgent, SYNTHETIC_CALLER, userCaller } from '../caller/caller.js';
import { IdentityRepository, type AccessTokenRow, type UserRow } from './identity.repository.js';
import type { Credential } from '../caller/request-caller.js';
import {
  BROWSER_SESSION_PREFIX,
  constantTimeEquals,
  generateToken,
  PERSONAL_ACCESS_TOKEN_PREFIX,
  SESSION_AGENT_TOKEN_PREFIX,
  sha256,
} from './token.js';

/** Who the caller is, as the browser inbox shows it (GET /api/v1/auth/session). */
export interface CallerView {
  auth_mode: AppConfig['authMode'];
  caller: { kind: Caller['kind']; user_id: string | null; name: string | null };
}

export interface CreatedToken {
  row: AccessTokenRow;
  token: string;
}

/** A signed-in browser: the cookie value (shown once, stored only as SHA-256) and how long it lives. */
export interface OpenedBrowserSession {
  sessionId: string;
  maxAgeMs: number;
}

/** Idle expiry is pushed forward at most this often (or a tenth of the idle timeout, if shorter). */
const SESSION_TOUCH_INTERVAL_MS = 60_000;

function validName(name: string, field: string): string {
  if (name.length > INPUT_LIMITS.name) throw invalidArgument(`${field} must be shorter than or equal to ${INPUT_LIMITS.name} characters`);
  const reason = unstorableTextReason(name);
  if (reason) throw invalidArgument(`${field} ${reason}`);
  return name;
}

function invalidArgument(message: string): AuthorizationError {
  return new AuthorizationError(AuthorizationErrorCode.InvalidArgument, message);
}

@Injectable()
export class IdentityService {
  constructor(
    private readonly identities: IdentityRepository,
    private readonly browserSessions: BrowserSessionRepository,
    private readonly access: AccessRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  createUser(name: string): Promise<UserRow> {
    return this.identities.insertUser(randomUUID(), validName(name, 'name'));
  }

  listUsers(): Promise<UserRow[]> {
    return this.identities.listUsers();
  }

  listTokens(userId: string | undefined): Promise<AccessTokenRow[]> {
    return this.identities.listTokens(userId);
  }

  async createToken(userId: string, name: string): Promise<CreatedToken> {
    validName(name, 'name');
    if (!(await this.identities.userExists(userId))) throw AuthorizationError.notFound('user');
    const token = generateToken(PERSONAL_ACCESS_TOKEN_PREFIX);
    const row = await this.identities.insertToken(randomUUID(), userId, name, sha256(token));
    return { row, token };
  }

  /** Revokes a token; the browser sessions it opened end with it. */
  async revokeToken(tokenId: string): Promise<AccessTokenRow> {
    const row = await this.identities.revokeToken(tokenId);
    if (!row) throw AuthorizationError.notFound('token');
    return row;
  }

  /** The caller a bearer credential stands for, or undefined when it is unknown or revoked. */
  async authenticate(credential: string): Promise<Caller | undefined> {
    if (this.config.adminToken && constantTimeEquals(credential, this.config.adminToken)) return ADMIN_CALLER;
    if (!credential.startsWith(PERSONAL_ACCESS_TOKEN_PREFIX)) return undefined;
    const token = await this.identities.useActiveToken(sha256(credential));
    return token === undefined ? undefined : userCaller(token.user_id, { tokenId: token.token_id });
  }

  /** The session a session agent token belongs to (valid in every auth mode, for that session only). */
  async authenticateSessionAgent(credential: string): Promise<SessionAgent | undefined> {
    if (!credential.startsWith(SESSION_AGENT_TOKEN_PREFIX)) return undefined;
    const session = await this.access.findSessionByAgentToken(sha256(credential));
    return session ? { sessionId: session.id, taskId: session.task_id, openedBy: session.opened_by } : undefined;
  }

  /**
   * The caller behind a request's credential: the synthetic identity while auth is disabled;
   * otherwise the token's or the browser session's user, and none or a bad one is unauthenticated (401).
   */
  async resolveCaller(credential: Credential | undefined): Promise<Caller> {
    if (this.config.authMode === 'disabled') return SYNTHETIC_CALLER;
    if (!credential) throw AuthorizationError.unauthenticated();
    const caller = credential.kind === 'bearer' ? await this.authenticate(credential.secret) : await this.useBrowserSession(credential.secret);
    if (!caller) {
      throw AuthorizationError.unauthenticated(credential.kind === 'bearer' ? 'token is invalid or revoked' : 'session is invalid or expired');
    }
    return caller;
  }

  /**
   * Like resolveCaller, but with auth enabled a session agent token (as a bearer token — never from
   * the cookie) also stands for its session's agent.
   */
  async resolveCallerOrAgent(credential: Credential | undefined): Promise<Caller> {
    if (this.config.authMode === 'enabled' && credential?.kind === 'bearer' && credential.secret.startsWith(SESSION_AGENT_TOKEN_PREFIX)) {
      const agent = await this.authenticateSessionAgent(credential.secret);
      if (!agent) throw AuthorizationError.unauthenticated('token is invalid or revoked');
      return agentCaller(agent);
    }
    return this.resolveCaller(credential);
  }

  async describe(caller: Caller): Promise<CallerView> {
    const userId = caller.kind === 'user' ? caller.userId : null;
    const name = userId === null ? null : ((await this.identities.findUserName(userId)) ?? null);
    return { auth_mode: this.config.authMode, caller: { kind: caller.kind, user_id: userId, name } };
  }

  /**
   * Signs a browser in with a personal access token: a new opaque session id for its cookie. The
   * ADMIN_TOKEN (for automation) opens no browser session.
   */
  async openBrowserSession(token: string): Promise<OpenedBrowserSession> {
    const active = token.startsWith(PERSONAL_ACCESS_TOKEN_PREFIX) ? await this.identities.useActiveToken(sha256(token)) : undefined;
    if (!active) throw AuthorizationError.unauthenticated('token is invalid or revoked');
    const sessionId = generateToken(BROWSER_SESSION_PREFIX);
    await this.browserSessions.insert({
      id: randomUUID(),
      sessionSha256: sha256(sessionId),
      userId: active.user_id,
      tokenId: active.token_id,
      idleTimeoutMs: this.config.browserSessionIdleTimeoutMs,
      maxAgeMs: this.config.browserSessionMaxAgeMs,
    });
    return { sessionId, maxAgeMs: this.config.browserSessionMaxAgeMs };
  }

  /** Signs a browser out: its session id stops working at once, wherever it was copied. */
  async endBrowserSession(sessionId: string | undefined): Promise<void> {
    if (sessionId) await this.browserSessions.delete(sha256(sessionId));
  }

  private async useBrowserSession(sessionId: string): Promise<Caller | undefined> {
    if (!sessionId.startsWith(BROWSER_SESSION_PREFIX)) return undefined;
    const idle = this.config.browserSessionIdleTimeoutMs;
    const session = await this.browserSessions.use(sha256(sessionId), idle, Math.min(SESSION_TOUCH_INTERVAL_MS, idle / 10));
    if (session === undefined) return undefined;
    return userCaller(session.user_id, { tokenId: session.token_id, browserSessionId: session.id, browserSessionEndsAt: Date.now() + session.ends_in_ms });
  }
}
