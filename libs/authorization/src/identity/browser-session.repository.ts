import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow, queryRows } from '#persistence';
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

@Injectable()
export class BrowserSessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Opens a session, and forgets the user's sessions that have already expired. */
  async insert(session: NewBrowserSession): Promise<void> {
    await queryRows(
      this.dataSource,
      `WITH purged AS (
         DELETE FROM browser_sessions
          WHERE user_id = $3 AND (idle_expires_at <= clock_timestamp() OR expires_at <= clock_timestamp())
       )
       INSERT INTO browser_sessions (id, session_sha256, user_id, token_id, idle_expires_at, expires_at)
       VALUES ($1, $2, $3, $4,
               clock_timestamp() + make_interval(secs => $5::double precision / 1000),
               clock_timestamp() + make_interval(secs => $6::double precision / 1000))`,
      [session.id, session.sessionSha256, session.userId, session.tokenId, session.idleTimeoutMs, session.maxAgeMs],
    );
  }

  /**
   * The user of a live session: not idle or absolutely expired, its token not revoked. Its idle
   * expiry is pushed forward (never past the absolute one) once `touchAfterMs` has passed since the
   * last push, so most reads write nothing. `ends_in_ms` counts from the pushed expiry.
   */
  async use(sessionSha256: string, idleTimeoutMs: number, touchAfterMs: number): Promise<LiveBrowserSession | undefined> {
    return queryRow<LiveBrowserSession>(
      this.dataSource,
      `WITH live AS (
         SELECT s.id, s.user_id, s.token_id, s.last_seen_at, s.idle_expires_at, s.expires_at
           FROM browser_sessions s
           JOIN access_tokens t ON t.id = s.token_id AND t.revoked_at IS NULL
          WHERE s.session_sha256 = $1
            AND s.idle_expires_at > clock_timestamp()
            AND s.expires_at > clock_timestamp()
       ), touched AS (
         UPDATE browser_sessions s
            SET last_seen_at = clock_timestamp(),
                idle_expires_at = LEAST(clock_timestamp() + make_interval(secs => $2::double precision / 1000), s.expires_at)
           FROM live
          WHERE s.id = live.id AND live.last_seen_at < clock_timestamp() - make_interval(secs => $3::double precision / 1000)
         RETURNING s.id, s.idle_expires_at
       )
       SELECT live.id, live.user_id, live.token_id, ${ENDS_IN_MS('COALESCE(touched.idle_expires_at, live.idle_expires_at)', 'live.expires_at')} AS ends_in_ms
         FROM live LEFT JOIN touched ON touched.id = live.id`,
      [sessionSha256, idleTimeoutMs, touchAfterMs],
    );
  }

  /**
   * How long the session (by id) lives unless used again, without using it; undefined once it has
   * ended — expired, signed out, or its token revoked.
   */
  async endsInMs(id: string): Promise<number | undefined> {
    const row = await queryRow<{ ends_in_ms: number }>(
      this.dataSource,
      `SELECT ${ENDS_IN_MS('s.idle_expires_at', 's.expires_at')} AS ends_in_ms
         FROM browser_sessions s
         JOIN access_tokens t ON t.id = s.token_id AND t.revoked_at IS NULL
        WHERE s.id = $1 AND s.idle_expires_at > clock_timestamp() AND s.expires_at > clock_timestamp()`,
      [id],
    );
    return row?.ends_in_ms;
  }

  /** Ends the session and tells every process, so streams it opened close (CallerRevocations). */
  async delete(sessionSha256: string): Promise<void> {
    await queryRows(
      this.dataSource,
      `WITH ended AS (DELETE FROM browser_sessions WHERE session_sha256 = $1 RETURNING id)
       SELECT pg_notify('${REVOCATION_CHANNEL}', json_build_object('browser_session_id', id)::text) FROM ended`,
      [sessionSha256],
    );
  }
}
