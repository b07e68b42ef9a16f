import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import { bundleIsActive, CLARIFICATION_REQUEST } from '#tasks';
import { notifyBundlesSql } from '../bundle/bundle.sql.js';
import type { BundleRow } from '../bundle/clarification.types.js';
import { type Ballot, type BallotBox, routingOf } from './routing.rules.js';
import type { VoteRow } from './routing.types.js';

const VOTE_COLUMNS = `v.voter, v.seq::text AS seq, v.caller_kind, v.caller_user_id, v.caller_name, v.surface, v.rejected, v.reject_reason, v.answers, v.at`;

const VOTE_BALLOT_BOX = namedStatement(
  'vote_ballot_box',
  ['pending_id'],
  `SELECT ${bundleIsActive(':pending_id')} AS active,
              (SELECT m.metadata->'routing' FROM task_session_messages m
                WHERE m.metadata->>'pending_id' = :pending_id AND m.type = '${CLARIFICATION_REQUEST}' ORDER BY m.created_at, m.id LIMIT 1) AS routing,
              (SELECT json_agg(json_build_object('voter', v.voter, 'seq', v.seq::text, 'caller_kind', v.caller_kind, 'caller_user_id', v.caller_user_id,
                        'caller_name', v.caller_name, 'surface', v.surface, 'rejected', v.rejected, 'reject_reason', v.reject_reason,
                        'answers', v.answers, 'at', v.at) ORDER BY v.seq)
                 FROM clarification_votes v WHERE v.pending_id = :pending_id) AS votes`,
);

const VOTE_INSERT = namedStatement(
  'vote_insert',
  ['pending_id', 'voter', 'attempt_id', 'caller_kind', 'user_id', 'surface', 'rejected', 'reject_reason', 'answers'],
  `WITH cast_vote AS (
     INSERT INTO clarification_votes (pending_id, voter, attempt_id, caller_kind, caller_user_id, caller_name, surface, rejected, reject_reason, answers, at)
     SELECT :pending_id, :voter, :attempt_id, :caller_kind, :user_id::text, (SELECT u.name FROM users u WHERE u.id = :user_id::text), :surface, :rejected, :reject_reason, :answers::jsonb, statement_timestamp()
     RETURNING pending_id)
   ${notifyBundlesSql('SELECT pending_id FROM cast_vote', 'voted')}`,
);

const VOTE_LIST = namedStatement(
  'vote_list',
  ['pending_id'],
  `SELECT ${VOTE_COLUMNS} FROM clarification_votes v WHERE v.pending_id = :pending_id ORDER BY v.seq`,
);

/** The statements VoteRepository runs, for `npm run sql:write`. */
export const voteStatements: readonly NamedStatement[] = [VOTE_BALLOT_BOX, VOTE_INSERT, VOTE_LIST];

/** `clarification_votes`: the votes of routed bundles, one per voter, read and written under the session's lock. */
@Injectable()
export class VoteRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The box as the claim's transaction sees it: activeness, the rows' current routing, the votes in order. One statement. */
  async ballotBox(pendingId: string, manager: EntityManager): Promise<BallotBox> {
    const [row] = await VOTE_BALLOT_BOX.rows<{ active: boolean; routing: unknown; votes: (Omit<VoteRow, 'at'> & { at: string })[] | null }>(manager, { pending_id: pendingId });
    const routing = routingOf([{ metadata: { routing: row?.routing } } as unknown as BundleRow]);
    return {
      active: row?.active === true,
      routing,
      votes: (row?.votes ?? []).map((vote) => ({ ...vote, at: new Date(vote.at) })),
    };
  }

  /** Records the vote and announces it (`voted`, to every process once the transaction commits). */
  async insert(pendingId: string, ballot: Ballot, manager: EntityManager): Promise<void> {
    const { caller } = ballot;
    await VOTE_INSERT.rows(manager, {
      pending_id: pendingId,
      voter: ballot.voter,
      attempt_id: ballot.attemptId,
      caller_kind: caller.kind,
      user_id: caller.kind === 'user' ? caller.userId : null,
      surface: ballot.surface,
      rejected: ballot.own.rejected,
      reject_reason: ballot.own.reject_reason,
      answers: JSON.stringify(ballot.own.answers),
    });
  }

  /** Every vote of a bundle, in the order they were recorded. */
  list(pendingId: string): Promise<VoteRow[]> {
    return VOTE_LIST.rows<VoteRow>(this.dataSource, { pending_id: pendingId });
  }
}
