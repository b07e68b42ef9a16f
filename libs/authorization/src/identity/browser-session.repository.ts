import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import { REVOCATION_CHANNEL } from '../caller/revocation.channel.js';

export interface NewBrowserSession {
  id: string;
  sessionSha256: string;
  userId: string;
  tokenId: string;
  idleTimeoutMs: number;
  maxAgeMs: number;
}

export interface LiveBrowserSession {
  id: string;
  user_id: string;
  token_id: string;
  /** How long it lives unless used again: until its idle expiry, or its absolute one if sooner. */
  ends_in_ms: number;
}

/** Milliseconds from now to the session's end unless it is used again (the sooner of its two expiries). */
const ENDS_IN_MS = (idleExpiresAt: string, expiresAt: string) =>
  `(EXTRACT(EPOCH FROM LEAST(${idleExpiresAt}, ${expiresAt}) - clock_timestamp()) * 1000)::float8`;

const BROWSER_SESSION_INSERT = namedStatement(
  'browser_session_insert',
  ['id', 'session_sha256', 'user_id', 'token_id', 'idle_timeout_ms', 'max_age_ms'],
  `WITH purged AS (
         DELETE FROM browser_sessions
          WHERE user_id = :user_id AND (idle_expires_at <= clock_timestamp() OR expires_at <= clock_timestamp())
       )
       INSERT INTO browser_sessions (id, session_sha256, user_id, token_id, idle_expires_at, expires_at)
       VALUES (:id, :session_sha256, :user_id, :token_id,
               clock_timestamp() + make_interval(secs => :idle_timeout_ms::double precision / 1000),
               clock_timestamp() + make_interval(secs => :max_age_ms::double precision / 1000))`,
);

const BROWSER_SESSION_USE = namedStatement(
  'browser_session_use',
  ['session_sha256', 'idle_timeout_ms', 'touch_after_ms'],
  `WITH live AS (
         SELECT s.id, s.user_id, s.token_id, s.last_seen_at, s.idle_expires_at, s.expires_at
           FROM browser_sessions s
           JOIN access_tokens t ON t.id = s.token_id AND t.revoked_at IS NULL
          WHERE s.session_sha256 = :session_sha256
            AND s.idle_expires_at > clock_timestamp()
            AND s.expires_at > clock_timestamp()
       ), touched AS (
         UPDATE browser_sessions s
            SET last_seen_at = clock_timestamp(),
                idle_expires_at = LEAST(clock_timestamp() + make_interval(secs => :idle_timeout_ms::double precision / 1000), s.expires_at)
           FROM live
          WHERE s.id = live.id AND live.last_seen_at < clock_timestamp() - make_interval(secs => :touch_after_ms::double precision / 1000)
         RETURNING s.id, s.idle_expires_at
       )
       SELECT live.id, live.user_id, live.token_id, ${ENDS_IN_MS('COALESCE(touched.idle_expires_at, live.idle_expires_at)', 'live.expires_at')} AS ends_in_ms
         FROM live LEFT JOIN touched ON touched.id = live.id`,
);

const BROWSER_SESSION_ENDS_IN_MS = namedStatement(
  'browser_session_ends_in_ms',
  ['id'],
  `SELECT ${ENDS_IN_MS('s.idle_expires_at', 's.expires_at')} AS ends_in_ms
         FROM browser_sessions s
         JOIN access_tokens t ON t.id = s.token_id AND t.revoked_at IS NULL
        WHERE s.id = :id AND s.idle_expires_at > clock_timestamp() AND s.expires_at > clock_timestamp()`,
);

const BROWSER_SESSION_DELETE = namedStatement(
  'browser_session_delete',
  ['session_sha256'],
  `WITH ended AS (DELETE FROM browser_sessions WHERE session_sha256 = :session_sha256 RETURNING id)
       SELECT pg_notify('${REVOCATION_CHANNEL}', json_build_object('browser_session_id', id)::text) FROM ended`,
);

/** The statements BrowserSessionRepository runs, for `npm run sql:write`. */
export const browserSessionStatements: readonly NamedStatement[] = [
  BROWSER_SESSION_INSERT,
  BROWSER_SESSION_USE,
  BROWSER_SESSION_ENDS_IN_MS,
  BROWSER_SESSION_DELETE,
];

@Injectable()
export class BrowserSessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Opens a session, and forgets the user's sessions that have already expired. */
  async insert(session: NewBrowserSession): Promise<void> {
    await BROWSER_SESSION_INSERT.rows(this.dataSource, {
      id: session.id,
      session_sha256: session.sessionSha256,
      user_id: session.userId,
      token_id: session.tokenId,
      idle_timeout_ms: session.idleTimeoutMs,
      max_age_ms: session.maxAgeMs,
    });
  }

  /**
   * The user of a live session: not idle or absolutely expired, its token not revoked. Its idle
   * expiry is pushed forward (never past the absolute one) once `touchAfterMs` has passed since the
   * last push, so most reads write nothing. `ends_in_ms` counts from the pushed expiry.
   */
  async use(sessionSha256: string, idleTimeoutMs: number, touchAfterMs: number): Promise<LiveBrowserSession | undefined> {
    return BROWSER_SESSION_USE.row<LiveBrowserSession>(this.dataSource, {
      session_sha256: sessionSha256,
      idle_timeout_ms: idleTimeoutMs,
      touch_after_ms: touchAfterMs,
    });
  }

  /**
   * How long the session (by id) lives unless used again, without using it; undefined once it has
   * ended — expired, signed out, or its token revoked.
   */
  async endsInMs(id: string): Promise<number | undefined> {
    const row = await BROWSER_SESSION_ENDS_IN_MS.row<{ ends_in_ms: number }>(this.dataSource, { id });
    return row?.ends_in_ms;
  }

  /** Ends the session and tells every process, so streams it opened close (CallerRevocations). */
  async delete(sessionSha256: string): Promise<void> {
    await BROWSER_SESSION_DELETE.rows(this.dataSource, { session_sha256: sessionSha256 });
  }
}
