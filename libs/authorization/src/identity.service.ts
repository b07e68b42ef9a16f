import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { INPUT_LIMITS, unstorableTextReason } from '../../common/src/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/src/index.js';
import { AuthorizationError, AuthorizationErrorCode } from './authorization.errors.js';
import { AccessRepository } from './access.repository.js';
import { ADMIN_CALLER, type Caller, type SessionAgent, SYNTHETIC_CALLER, userCaller } from './caller.js';
import { IdentityRepository, type AccessTokenRow, type UserRow } from './identity.repository.js';
import {
  constantTimeEquals,
  generateToken,
  PERSONAL_ACCESS_TOKEN_PREFIX,
  SESSION_AGENT_TOKEN_PREFIX,
  sha256,
} from './token.js';

export interface CreatedToken {
  row: AccessTokenRow;
  token: string;
}

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
    private readonly access: AccessRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  createUser(name: string): Promise<UserRow> {
    return this.identities.insertUser(randomUUID(), validName(name, 'name'));
  }

  async createToken(userId: string, name: string): Promise<CreatedToken> {
    validName(name, 'name');
    if (!(await this.identities.userExists(userId))) throw AuthorizationError.notFound('user');
    const token = generateToken(PERSONAL_ACCESS_TOKEN_PREFIX);
    const row = await this.identities.insertToken(randomUUID(), userId, name, sha256(token));
    return { row, token };
  }

  async revokeToken(tokenId: string): Promise<AccessTokenRow> {
    const row = await this.identities.revokeToken(tokenId);
    if (!row) throw AuthorizationError.notFound('token');
    return row;
  }

  /** The caller a bearer credential stands for, or undefined when it is unknown or revoked. */
  async authenticate(credential: string): Promise<Caller | undefined> {
    if (this.config.adminToken && constantTimeEquals(credential, this.config.adminToken)) return ADMIN_CALLER;
    if (!credential.startsWith(PERSONAL_ACCESS_TOKEN_PREFIX)) return undefined;
    const userId = await this.identities.useActiveToken(sha256(credential));
    return userId === undefined ? undefined : userCaller(userId);
  }

  /** The session a session agent token belongs to (valid in every auth mode, for that session only). */
  async authenticateSessionAgent(credential: string): Promise<SessionAgent | undefined> {
    if (!credential.startsWith(SESSION_AGENT_TOKEN_PREFIX)) return undefined;
    const session = await this.access.findSessionByAgentToken(sha256(credential));
    return session ? { sessionId: session.id, taskId: session.task_id } : undefined;
  }

  /**
   * The caller behind a request's credential: the synthetic identity while auth is disabled;
   * otherwise the token's owner, and no or a bad credential is unauthenticated (401).
   */
  async resolveCaller(credential: string | undefined): Promise<Caller> {
    if (this.config.authMode === 'disabled') return SYNTHETIC_CALLER;
    if (!credential) throw AuthorizationError.unauthenticated();
    const caller = await this.authenticate(credential);
    if (!caller) throw AuthorizationError.unauthenticated('token is invalid or revoked');
    return caller;
  }

  async requireValidToken(credential: string): Promise<Caller> {
    const caller = await this.authenticate(credential);
    if (!caller) throw new AuthorizationError(AuthorizationErrorCode.Unauthenticated, 'token is invalid or revoked');
    return caller;
  }
}
