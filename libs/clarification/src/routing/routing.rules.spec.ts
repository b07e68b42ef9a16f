import { ADMIN_CALLER, userCaller } from '#authorization';
import { ClarificationStatus } from '../bundle/clarification.types.js';
import { type BallotBox, castBallot, DISAGREEMENT_REASON, mayAnswer, tally } from './routing.rules.js';
import type { StoredRouting, VoteRow } from './routing.types.js';

const PG = [{ question_id: 'db', selected_options: ['pg'], custom_text: '' }];
const LITE = [{ question_id: 'db', selected_options: ['lite'], custom_text: '' }];
const vote = (voter: string, answers = PG, rejected = false, reason = ''): VoteRow => ({
  voter,
  seq: '1',
  caller_kind: 'user',
  caller_user_id: voter,
  caller_name: voter,
  surface: 'rest',
  rejected,
  reject_reason: reason,
  answers,
  at: new Date(),
});
const routing = (required: number, answerers: string[] | null = null): StoredRouting => ({
  answerers: answerers?.map((id) => ({ user_id: id, name: id })) ?? null,
  required_answers: required,
  escalation: [],
});
const ballot = (voter: string, answers = PG, rejected = false) => ({
  caller: userCaller(voter),
  voter: `user:${voter}`,
  surface: 'rest',
  attemptId: 'a',
  own: { rejected, answers: rejected ? [] : answers, reject_reason: rejected ? 'no' : '' },
});
const box = (votes: VoteRow[], required: number, answerers: string[] | null = null, active = true): BallotBox => ({ active, routing: routing(required, answerers), votes });

describe('routing rules (Q1–Q3)', () => {
  it('Q1: only the answerers and unscoped callers may answer a routed bundle', () => {
    expect(mayAnswer(userCaller('bob'), routing(1, ['alice']))).toBe(false);
    expect(mayAnswer(userCaller('alice'), routing(1, ['alice']))).toBe(true);
    expect(mayAnswer(ADMIN_CALLER, routing(1, ['alice']))).toBe(true);
    expect(mayAnswer({ kind: 'agent', sessionId: 's', taskId: 't', openedBy: 'admin' }, routing(1, ['alice']))).toBe(false);
    expect(mayAnswer(userCaller('bob'), undefined)).toBe(true);
    expect(mayAnswer(userCaller('bob'), routing(2))).toBe(true);
  });

  it('Q3: N identical votes answer; the first rejection or the first differing vote rejects; otherwise undecided', () => {
    expect(tally([vote('a')], 2)).toBeUndefined();
    expect(tally([vote('a'), vote('b')], 2)).toEqual({ terminal: ClarificationStatus.Answered, answers: PG, rejectReason: '' });
    expect(tally([vote('a'), vote('b', LITE)], 3)).toEqual({ terminal: ClarificationStatus.Rejected, answers: [], rejectReason: DISAGREEMENT_REASON });
    expect(tally([vote('a'), vote('b', [], true, 'not now'), vote('c', LITE)], 3)).toEqual({ terminal: ClarificationStatus.Rejected, answers: [], rejectReason: 'not now' });
    expect(tally([vote('a', LITE), vote('b', [], true, 'x')], 3)?.rejectReason).toBe('x');
  });

  it('Q2: a new vote is recorded; a replay is not; a different second vote conflicts; an inactive bundle takes none', () => {
    expect(castBallot(box([], 2), ballot('a'))).toEqual({ kind: 'recorded', record: true, replayed: false, votes: 1, required_answers: 2 });
    expect(castBallot(box([vote('user:a')], 2), ballot('a'))).toEqual({ kind: 'recorded', record: false, replayed: true, votes: 1, required_answers: 2 });
    expect(castBallot(box([vote('user:a')], 2), ballot('a', LITE))).toEqual({ kind: 'conflict' });
    expect(castBallot(box([vote('user:a')], 2), ballot('b'))).toMatchObject({ kind: 'decided', record: true, outcome: { terminal: 'answered' } });
    expect(castBallot(box([], 2, null, false), ballot('a'))).toEqual({ kind: 'inactive' });
    expect(castBallot(box([], 1, ['alice']), ballot('bob'))).toMatchObject({ kind: 'not_eligible' });
  });

  it('Q2: a box already decided takes no further vote, it is claimed (a rolled-back resolution completes)', () => {
    const decided = box([vote('user:a'), vote('user:b')], 2);
    expect(castBallot(decided, ballot('c', LITE))).toMatchObject({ kind: 'decided', record: false, outcome: { terminal: 'answered', answers: PG } });
    expect(castBallot(decided, ballot('a'))).toMatchObject({ kind: 'decided', record: false });
  });
});
