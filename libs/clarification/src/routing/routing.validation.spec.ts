import { namedUserIds, normalizeRouting } from './routing.validation.js';

describe('normalizeRouting', () => {
  it('absent, null and the default are no routing', () => {
    expect(normalizeRouting(undefined)).toBeUndefined();
    expect(normalizeRouting(null)).toBeUndefined();
    expect(normalizeRouting({})).toBeUndefined();
    expect(normalizeRouting({ required_answers: 1 })).toBeUndefined();
  });

  it('normalizes a full routing object and names every user it holds', () => {
    const routing = normalizeRouting({
      answerers: { user_ids: ['a', 'b'] },
      required_answers: 2,
      escalation: [{ after_seconds: 30, remind: true }, { after_seconds: 60, reassign_to: { user_ids: ['c', 'd'] } }],
    });
    expect(routing).toEqual({
      answerers: ['a', 'b'],
      required_answers: 2,
      escalation: [{ after_seconds: 30, remind: true }, { after_seconds: 60, reassign_to: { user_ids: ['c', 'd'] } }],
    });
    expect(namedUserIds(routing as NonNullable<typeof routing>)).toEqual(['a', 'b', 'c', 'd']);
  });

  it.each([
    [[], /^routing must be an object/],
    [{ answerers: { user_ids: ['a'] }, required_answers: 2 }, /^routing\.required_answers must be at most/],
    [{ escalation: [{ after_seconds: 30, remind: false }] }, /^routing\.escalation\[0\] must set remind/],
    [{ escalation: [{ after_seconds: 2_592_001, remind: true }] }, /^routing\.escalation\[0\]\.after_seconds must be an integer from 30 to 2592000/],
  ])('refuses %j naming the field', (value, message) => {
    expect(() => normalizeRouting(value)).toThrow(message);
  });
});
