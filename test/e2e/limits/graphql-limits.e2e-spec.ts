/**
 * GraphQL resource limits and client conveniences: a document is
 * refused before execution when it is too large (tokens), too deep (lexically, before the parser
 * can overflow its stack), selects too many list fields at its root, or costs more than the
 * budget — a list costs its page size, nested lists multiply; subscriptions get the same rules;
 * a malformed request body is a 400; connection_init accepts the common credential shapes.
 */
import { jest } from '@jest/globals';
import request from 'supertest';
import { PendingListService } from '#clarification';
import { loadConfig } from '#config';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gql, graphqlErrorsOf, subscribe } from '../../support/graphql.js';

const FULL_PAGE = (first: string) => `pendingQuestions(first: ${first}) {
  nodes { pendingId taskId sessionId createdAt ageSeconds context
    questions { questionId title prompt status options { optionId label description } } }
  count pageInfo { hasNextPage endCursor } }`;

/** graphql-js parses recursively: unchecked, a few thousand levels overflow the stack. */
const DEEP_SELECTION = `{ pendingQuestions { nodes ${'{ questions '.repeat(4000)}{ prompt }${' }'.repeat(4000)} } }`;
const DEEP_ARGUMENT = `{ question(pendingId: ${'['.repeat(4000)}"x"${']'.repeat(4000)}) { pendingId } }`;

async function expectRefused(t: TestApp, document: string, message: RegExp, variables?: Record<string, unknown>) {
  const result = await gql(t, document, variables);
  expect({ status: result.status, data: result.body.data ?? null }).toEqual({ status: 400, data: null });
  expect(result.body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(message), extensions: { code: 'VALIDATION_ERROR' } })]);
}

async function expectAccepted(t: TestApp, document: string, variables?: Record<string, unknown>) {
  const result = await gql(t, document, variables);
  expect(result.body.errors).toBeUndefined();
  expect(result.status).toBe(200);
}

describe('GraphQL limits (cost budget 10000 in this app)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { graphql: { ...loadConfig({}).graphql, maxCost: 10_000 } } });
    const fixture = await createRunningSession(t);
    await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['{"query": 5}', { query: 5 }, /query must be a string/],
    ['{"query": null}', { query: null }, /query must be a string/],
    ['no query', { variables: {} }, /query must be a string/],
    ['a JSON array', [{ query: '{ workspaces { id } }' }], /must be a JSON object/],
    ['variables a string', { query: '{ workspaces { id } }', variables: 'x' }, /variables must be a JSON object/],
    ['operationName a number', { query: '{ workspaces { id } }', operationName: 5 }, /operationName must be a string/],
  ])('a malformed body (%s) ⇒ 400 naming the field, as a GraphQL error', async (_label, body, message) => {
    const res = await request(t.baseUrl).post('/graphql').set('content-type', 'application/json').send(JSON.stringify(body));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ data: null, errors: [{ message: expect.stringMatching(message), extensions: { code: 'VALIDATION_ERROR' } }] });
  });

  it.each([
    ['selections nested 4000 deep', DEEP_SELECTION],
    ['an argument list nested 4000 deep', DEEP_ARGUMENT],
  ])('a depth attack (%s) is refused by the depth rule with its own message, not a stack overflow', async (_label, document) => {
    await expectRefused(t, document, /query is too deep: .* the query depth limit of 10$/);
    const result = await gql(t, document);
    expect(JSON.stringify(result.body)).not.toMatch(/call stack/i);
  });

  it('a document over GRAPHQL_MAX_TOKENS (5000) is refused before it is parsed', async () => {
    const aliases = Array.from({ length: 1700 }, (_, i) => `a${i}: __typename`).join(' ');
    await expectRefused(t, `{ ${aliases} }`, /^query is too large: more than 5000 tokens \(GRAPHQL_MAX_TOKENS\)$/);
  });

  it('250 aliases of pendingQuestions(first: 200) { count } are refused by the root-list cap, before any list runs', async () => {
    const list = jest.spyOn(t.app.get(PendingListService), 'list');
    const aliases = Array.from({ length: 250 }, (_, i) => `p${i}: pendingQuestions(first: 200) { count }`).join(' ');
    await expectRefused(t, `{ ${aliases} }`, /^query selects 250 list fields at its root; at most 10 per operation \(GRAPHQL_MAX_ROOT_LISTS\)$/);
    // Spreads and inline fragments count what they select.
    const spread = `{ ...P ... on Query { w1: workspaces { id } } } fragment P on Query { ${Array.from({ length: 10 }, (_, i) => `p${i}: pendingQuestions(first: 1) { count }`).join(' ')} }`;
    await expectRefused(t, spread, /selects 11 list fields/);
    expect(list).not.toHaveBeenCalled();
    await expectAccepted(t, `{ ${Array.from({ length: 10 }, (_, i) => `p${i}: pendingQuestions(first: 1) { count }`).join(' ')} }`);
  });

  it('a list costs its page size; nested lists multiply; a page over budget is refused before execution, naming the budget', async () => {
    const list = jest.spyOn(t.app.get(PendingListService), 'list');
    // 200 × (1 + nodes(1 + questions 4 × (1 + options 6 × (1 + optionId)))) = 200 × 54.
    await expectRefused(
      t,
      '{ pendingQuestions(first: 200) { nodes { questions { options { optionId } } } } }',
      /^query is too expensive: its estimated cost is 10800, above the budget of 10000 \(GRAPHQL_MAX_COST\)/,
    );
    expect(list).not.toHaveBeenCalled();
    // Without the innermost list: 200 × (1 + 1 + 4 × (1 + 1)) = 2000.
    await expectAccepted(t, '{ pendingQuestions(first: 200) { nodes { questions { prompt } } } }');
    // The page size is read from variables too, and defaults to 50 when absent: 50 × 128 = 6400.
    const page = `query($n: Int) { ${FULL_PAGE('$n')} }`;
    await expectRefused(t, page, /its estimated cost is 25600/, { n: 200 });
    await expectAccepted(t, page, { n: 50 });
    await expectAccepted(t, page);
    // A page size above the maximum counts as the maximum (200 rows).
    await expectRefused(t, `{ ${FULL_PAGE('100000')} }`, /its estimated cost is 25600/);
  });

  it('subscriptions get the same rules: depth attack, token limit and cost are refused for the subscribe id', async () => {
    for (const [document, message] of [
      [`subscription { questionEvents { response ${'{ answers '.repeat(3000)}{ questionId }${' }'.repeat(3000)} } }`, /query is too deep/],
      [`subscription { questionEvents { ${Array.from({ length: 1700 }, (_, i) => `a${i}: id`).join(' ')} } }`, /query is too large/],
    ] as const) {
      const subscription = subscribe(t, document);
      try {
        const errors = graphqlErrorsOf(await subscription.waitForError(5000));
        expect(errors).toEqual([{ message: expect.stringMatching(message), extensions: { code: 'VALIDATION_ERROR' } }]);
      } finally {
        await subscription.close();
      }
    }
  });
});

describe('GraphQL subscription cost (budget 20)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { graphql: { ...loadConfig({}).graphql, maxCost: 20 } } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a subscription whose selection costs more than the budget is refused; a cheap one is served', async () => {
    // 1 + response(1 + answers 4 × (1 + selectedOptions 6 + questionId 1)) = 34.
    const expensive = subscribe(t, 'subscription { questionEvents { response { answers { selectedOptions questionId } } } }');
    try {
      expect(graphqlErrorsOf(await expensive.waitForError(5000))).toEqual([
        { message: expect.stringMatching(/its estimated cost is 34, above the budget of 20/), extensions: { code: 'VALIDATION_ERROR' } },
      ]);
    } finally {
      await expensive.close();
    }
    const cheap = subscribe<{ questionEvents: { type: string } }>(t, 'subscription { questionEvents { type } }');
    try {
      await cheap.connected;
      const fixture = await createRunningSession(t);
      await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
      expect((await cheap.waitFor(1))[0]).toEqual({ questionEvents: { type: 'ASKED' } });
    } finally {
      await cheap.close();
    }
  });
});

describe('connection_init payloads of the common shapes (AUTH_MODE=enabled)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    const fixture = await createRunningSession(t, { bearer: TEST_ADMIN_TOKEN });
    await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
  });
  afterAll(async () => {
    await t.close();
  });

  const bearer = `Bearer ${TEST_ADMIN_TOKEN}`;
  it.each([
    ['{authorization}', { authorization: bearer }],
    ['{Authorization}', { Authorization: bearer }],
    ['{headers: {Authorization}}', { headers: { Authorization: bearer } }],
    ['{headers: {authorization}}', { headers: { authorization: bearer } }],
  ])('%s identifies the subscriber', async (_label, connectionParams) => {
    const subscription = subscribe<{ questionEvents: { type: string } }>(t, 'subscription($after: String) { questionEvents(after: $after) { type } }', {
      connectionParams,
      variables: { after: '0' },
    });
    try {
      expect((await subscription.waitFor(1))[0]).toEqual({ questionEvents: { type: 'ASKED' } });
    } finally {
      await subscription.close();
    }
  });

  it.each([
    ['{Authorization}', { Authorization: 'Bearer parley_pat_unknown' }],
    ['{headers: {Authorization}}', { headers: { Authorization: 'Bearer parley_pat_unknown' } }],
  ])('an unknown token in %s is refused', async (_label, connectionParams) => {
    const subscription = subscribe(t, 'subscription { questionEvents { type } }', { connectionParams });
    try {
      await expect(subscription.waitForError(5000)).resolves.toBeDefined();
      expect(subscription.events).toEqual([]);
    } finally {
      await subscription.close();
    }
  });
});
