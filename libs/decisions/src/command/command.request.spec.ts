import { canonicalMutation, echoOf, isLive, isRequestId, parseCommandRequest } from './command.request.js';
import { CommandStatus, DecisionError } from '../decisions.errors.js';

/** A valid live request; each case changes one thing. */
const valid = () => ({
  schema_version: 1,
  action: 'answer_decision',
  request_id: 'req-1',
  dry_run: false,
  target: { worker_id: 'worker-7' },
  params: { decision_ref: 'decision-abc', selection: { option_refs: ['2'] } },
});

/** The DecisionError parseCommandRequest throws for `body`. */
function refusal(body: unknown): DecisionError {
  try {
    parseCommandRequest(body);
  } catch (error) {
    if (error instanceof DecisionError) return error;
    throw error;
  }
  throw new Error('parseCommandRequest accepted the request');
}

describe('parseCommandRequest', () => {
  it('parses a live request', () => {
    const request = parseCommandRequest(valid());
    expect(request).toEqual({ requestId: 'req-1', dryRun: false, workerId: 'worker-7', decisionRef: 'decision-abc', selection: { optionRefs: ['2'] } });
    expect(isLive(request)).toBe(true);
  });

  it('is a dry run when dry_run is absent, and then needs no request_id', () => {
    const { dry_run: _, request_id: __, ...body } = valid();
    const request = parseCommandRequest(body);
    expect(request).toMatchObject({ requestId: null, dryRun: true });
    expect(isLive(request)).toBe(false);
  });

  it('parses a write-in selection', () => {
    const body = valid();
    expect(parseCommandRequest({ ...body, params: { ...body.params, selection: { text: 'use the staging database' } } }).selection).toEqual({
      text: 'use the staging database',
    });
  });

  it.each([
    ['not an object', [], CommandStatus.InvalidRequest, 'request'],
    ['null', null, CommandStatus.InvalidRequest, 'request'],
    ['schema_version 2', { ...valid(), schema_version: 2 }, CommandStatus.InvalidRequest, 'schema_version'],
    ['schema_version "1"', { ...valid(), schema_version: '1' }, CommandStatus.InvalidRequest, 'schema_version'],
    ['dry_run "false"', { ...valid(), dry_run: 'false' }, CommandStatus.InvalidRequest, 'dry_run'],
    ['another action', { ...valid(), action: 'approve' }, CommandStatus.InvalidRequest, 'action'],
    ['a request_id with a space', { ...valid(), request_id: 'req 1' }, CommandStatus.InvalidRequest, 'request_id'],
    ['a request_id of 129 characters', { ...valid(), request_id: 'r'.repeat(129) }, CommandStatus.InvalidRequest, 'request_id'],
    ['a live request without request_id', { ...valid(), request_id: undefined }, CommandStatus.InvalidRequest, 'request_id'],
    ['target with an extra field', { ...valid(), target: { worker_id: 'w', session: 's' } }, CommandStatus.InvalidRequest, 'target'],
    ['a blank worker_id', { ...valid(), target: { worker_id: '  ' } }, CommandStatus.InvalidRequest, 'target.worker_id'],
    ['params without selection', { ...valid(), params: { decision_ref: 'd' } }, CommandStatus.InvalidRequest, 'params'],
    ['a numeric decision_ref', { ...valid(), params: { decision_ref: 5, selection: { text: 'x' } } }, CommandStatus.InvalidRequest, 'params.decision_ref'],
    ['a selection with both forms', { ...valid(), params: { decision_ref: 'd', selection: { text: 'x', option_refs: ['1'] } } }, CommandStatus.InvalidSelection, 'params.selection'],
    ['a selection of another form', { ...valid(), params: { decision_ref: 'd', selection: { refs: ['1'] } } }, CommandStatus.InvalidSelection, 'params.selection'],
    ['empty option_refs', { ...valid(), params: { decision_ref: 'd', selection: { option_refs: [] } } }, CommandStatus.InvalidSelection, 'params.selection.option_refs'],
    ['a numeric option ref', { ...valid(), params: { decision_ref: 'd', selection: { option_refs: [1] } } }, CommandStatus.InvalidSelection, 'params.selection.option_refs'],
    ['blank text', { ...valid(), params: { decision_ref: 'd', selection: { text: ' \n' } } }, CommandStatus.InvalidSelection, 'params.selection.text'],
  ])('refuses %s', (_, body, status, field) => {
    const error = refusal(body);
    expect(error.code).toBe(status);
    expect(error.details).toEqual({ field });
  });

  it('refuses forbidden transport fields anywhere, by path, before anything else is checked', () => {
    const error = refusal({ schema_version: 9, params: { selection: { 'Pane-Id': 3 } }, keys: ['q'] });
    expect(error.code).toBe(CommandStatus.InvalidRequest);
    expect(error.details).toEqual({ fields: ['$.params.selection.Pane-Id', '$.keys'] });
  });

  it('refuses unknown top-level fields, all of them named', () => {
    const error = refusal({ ...valid(), extra: 1, more: 2 });
    expect(error.message).toBe('request contains unknown top-level fields: extra, more');
    expect(error.details).toEqual({ fields: ['$.extra', '$.more'] });
  });

  it('checks in the reference order: schema_version before action', () => {
    expect(refusal({ ...valid(), schema_version: 0, action: 'x' }).details).toEqual({ field: 'schema_version' });
  });
});

describe('isRequestId and echoOf', () => {
  it.each([
    ['a', true],
    ['A.b_c-9', true],
    ['x'.repeat(128), true],
    ['', false],
    ['x'.repeat(129), false],
    [' req', false],
    ['req/1', false],
    [7, false],
  ])('isRequestId(%j) ⇒ %s', (value, expected) => {
    expect(isRequestId(value)).toBe(expected);
  });

  it('echoes a live flag only beside a valid request id', () => {
    expect(echoOf({ action: 'answer_decision', request_id: 'r1', dry_run: false })).toEqual({ action: 'answer_decision', requestId: 'r1', dryRun: false });
    expect(echoOf({ action: 'answer_decision', request_id: 'bad id', dry_run: false })).toEqual({ action: 'answer_decision', requestId: null, dryRun: true });
    expect(echoOf({ request_id: 'r1' })).toEqual({ action: '', requestId: 'r1', dryRun: true });
    expect(echoOf('garbage')).toEqual({ action: '', requestId: null, dryRun: true });
    expect(echoOf({ action: 3 })).toEqual({ action: '', requestId: null, dryRun: true });
  });
});

describe('canonicalMutation', () => {
  const request = (selection: { optionRefs: string[] } | { text: string }, requestId: string | null = 'r1', dryRun = false) => ({
    requestId,
    dryRun,
    workerId: 'w1',
    decisionRef: 'decision-1',
    selection,
  });

  it('is the canonical JSON of action, worker, decision and selection, and its SHA-256', () => {
    const { json, fingerprint } = canonicalMutation(request({ optionRefs: ['1'] }));
    expect(json).toBe(
      '{"action":"answer_decision","canonical_version":1,"decision":{"decision_ref":"decision-1","selection":{"option_refs":["1"]}},"target":{"worker_id":"w1"}}',
    );
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores request_id and dry_run', () => {
    expect(canonicalMutation(request({ text: 'x' }, 'r1', false))).toEqual(canonicalMutation(request({ text: 'x' }, null, true)));
  });

  it('orders option references numerically (10 after 9), the non-numeric ones first', () => {
    expect(JSON.parse(canonicalMutation(request({ optionRefs: ['10', '9', 'b', '1', 'a'] })).json).decision.selection.option_refs).toEqual([
      'a',
      'b',
      '1',
      '9',
      '10',
    ]);
    expect(canonicalMutation(request({ optionRefs: ['2', '1'] })).fingerprint).toBe(canonicalMutation(request({ optionRefs: ['1', '2'] })).fingerprint);
  });

  it('tells a selection from write-in text naming the same thing', () => {
    expect(canonicalMutation(request({ optionRefs: ['1'] })).fingerprint).not.toBe(canonicalMutation(request({ text: '1' })).fingerprint);
  });
});
