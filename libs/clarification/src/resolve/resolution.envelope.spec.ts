import { type Answer, ClarificationStatus } from '../bundle/clarification.types.js';
import { type Resolution, serializeResolution } from './resolution.envelope.js';

/** R12: the resolution envelope every surface returns carries every key, empty values included. */

describe('serializeResolution', () => {
  it('a rejection: every key present, as [], "" and false — in one fixed order', () => {
    const resolution: Resolution = { claimed: false, status: ClarificationStatus.Rejected, response: { answers: [], rejected: true, reject_reason: '' }, receipt: 'r' };
    expect(JSON.stringify(serializeResolution(resolution))).toBe('{"claimed":false,"status":"rejected","receipt":"r","response":{"answers":[],"rejected":true,"reject_reason":""}}');
  });

  it('an answer entry missing fields (as read back from stored rows) gets them, empty', () => {
    const partial = { question_id: 'db' } as unknown as Answer;
    const missingReason = { answers: [partial], rejected: false } as unknown as Resolution['response'];
    expect(serializeResolution({ claimed: true, status: ClarificationStatus.Answered, response: missingReason, receipt: null })).toEqual({
      claimed: true,
      status: 'answered',
      response: { answers: [{ question_id: 'db', selected_options: [], custom_text: '' }], rejected: false, reject_reason: '' },
      receipt: null,
    });
  });

  it('copies what it is given, field by field: extra keys are dropped and the selection is a new array', () => {
    const selected = ['pg', 'sqlite'];
    const answer = { question_id: 'db', selected_options: selected, custom_text: 'both', note: 'internal' } as Answer;
    const envelope = serializeResolution({ claimed: true, status: ClarificationStatus.Answered, response: { answers: [answer], rejected: false, reject_reason: '' }, receipt: null });
    expect(Object.keys(envelope.response.answers[0])).toEqual(['question_id', 'selected_options', 'custom_text']);
    expect(envelope.response.answers[0].selected_options).toEqual(['pg', 'sqlite']);
    expect(envelope.response.answers[0].selected_options).not.toBe(selected);
  });
});
