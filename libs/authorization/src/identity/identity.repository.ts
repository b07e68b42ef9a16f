import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import { REVOCATION_CHANNEL } from '../caller/revocation.channel.js';

export interface UserRow {
  id: string;
  name: string;
  created_at: Date;
}

export interface AccessTokenRow {
  id: string;
  user_id: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface ActiveToken {
  token_id: string;
  user_id: string;
}

/** Every authenticated request reads it first: named, so it is planned once per connection. */
export const ACTIVE_TOKEN = namedStatement(
  'active_token',
  ['token_sha256'],
  `WITH token AS (
     SELECT id, user_id FROM access_tokens WHERE token_sha256 = :token_sha256 AND revoked_at IS NULL
   ), touched AS (
     UPDATE access_tokens SET last_used_at = clock_timestamp()
     WHERE id IN (SELECT id FROM token)
       AND (last_used_at IS NULL OR last_used_at < clock_timestamp() - interval '1 minute')
   )
   SELECT id AS token_id, user_id FROM token`,
);

const IDENTITY_INSERT_USER = namedStatement(
  'identity_insert_user',
  ['id', 'name'],
  `INSERT INTO users (id, name) VALUES (:id, :name) RETURNING id, name, created_at`,
);

const IDENTITY_FIND_USER_NAME = namedStatement('identity_find_user_name', ['id'], `SELECT name FROM users WHERE id = :id`);

const IDENTITY_USER_EXISTS = namedStatement('identity_user_exists', ['id'], `SELECT 1 FROM users WHERE id = :id`);

const IDENTITY_LIST_USERS = namedStatement(
  'identity_list_users',
  [],
  `SELECT id, name, created_at FROM users ORDER BY created_at, id`,
);

const IDENTITY_LIST_TOKENS = namedStatement(
  'identity_list_tokens',
  ['user_id'],
  `SELECT id, user_id, name, created_at, last_used_at, revoked_at FROM access_tokens
       WHERE :user_id::text IS NULL OR user_id = :user_id ORDER BY created_at, id`,
);

const IDENTITY_INSERT_TOKEN = namedStatement(
  'identity_insert_token',
  ['id', 'user_id', 'name', 'token_sha256'],
  `INSERT INTO access_tokens (id, user_id, name, token_sha256) VALUES (:id, :user_id, :name, :token_sha256)
       RETURNING id, user_id, name, created_at, last_used_at, revoked_at`,
);

const IDENTITY_REVOKE_TOKEN = namedStatement(
  'identity_revoke_token',
  ['id'],
  `WITH revoked AS (
         UPDATE access_tokens SET revoked_at = COALESCE(revoked_at, clock_timestamp()) WHERE id = :id
         RETURNING id, user_id, name, created_at, last_used_at, revoked_at
       ), ended AS (
         DELETE FROM browser_sessions WHERE token_id IN (SELECT id FROM revoked)
       ), told AS (
         SELECT pg_notify('${REVOCATION_CHANNEL}', json_build_object('token_id', id)::text) AS sent FROM revoked
       )
       SELECT revoked.*, (SELECT COUNT(*) FROM told) AS told FROM revoked`,
);

/** The statements IdentityRepository runs, for `npm run sql:write`. */
export const identityStatements: readonly NamedStatement[] = [
  ACTIVE_TOKEN,
  IDENTITY_INSERT_USER,
  IDENTITY_FIND_USER_NAME,
  IDENTITY_USER_EXISTS,
  IDENTITY_LIST_USERS,
  IDENTITY_LIST_TOKENS,
  IDENTITY_INSERT_TOKEN,
  IDENTITY_REVOKE_TOKEN,
];

@Injectable()
export class IdentityRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertUser(id: string, name: string): Promise<UserRow> {
    const row = await IDENTITY_INSERT_USER.row<UserRow>(this.dataSource, { id, name });
    return row as UserRow;
  }

  async findUserName(id: string): Promise<string | undefined> {
    const row = await IDENTITY_FIND_USER_NAME.row<{ name: string }>(this.dataSource, { id });
    return row?.name;
  }

  async userExists(id: string): Promise<boolean> {
    const rows = await IDENTITY_USER_EXISTS.rows(this.dataSource, { id });
    return rows.length > 0;
  }

  /** Every user, oldest first (an operator's listing: the CLI). */
  listUsers(): Promise<UserRow[]> {
    return IDENTITY_LIST_USERS.rows<UserRow>(this.dataSource, {});
  }

  /** Every token (never its hash), oldest first; only one user's when userId is given. */
  listTokens(userId: string | undefined): Promise<AccessTokenRow[]> {
    return IDENTITY_LIST_TOKENS.rows<AccessTokenRow>(this.dataSource, { user_id: userId ?? null });
  }

  async insertToken(id: string, userId: string, name: string, tokenSha256: string): Promise<AccessTokenRow> {
    const row = await IDENTITY_INSERT_TOKEN.row<AccessTokenRow>(this.dataSource, {
      id,
      user_id: userId,
      name,
      token_sha256: tokenSha256,
    });
    return row as AccessTokenRow;
  }

  /** A live token (its id and owner), recording its use (at most once a minute, to keep reads cheap). */
  async useActiveToken(tokenSha256: string): Promise<ActiveToken | undefined> {
    const [token] = await ACTIVE_TOKEN.run<ActiveToken>(this.dataSource, { token_sha256: tokenSha256 });
    return token;
  }

  /** Revokes a token, ends the browser sessions it opened and tells every process — in one statement. */
  async revokeToken(id: string): Promise<AccessTokenRow | undefined> {
    return IDENTITY_REVOKE_TOKEN.row<AccessTokenRow>(this.dataSource, { id });
  }
}
