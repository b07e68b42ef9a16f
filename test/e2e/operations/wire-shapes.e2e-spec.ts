/**
 * One declaration per wire shape: the resolution, the pending bundle and a bundle's own read (with the
 * shapes inside them) are zod schemas in libs/clarification/src/wire (the action in libs/receipts), a
 * task, a workspace and their pages are zod schemas in libs/tasks/src/wire, and the lists of
 * answering surfaces and caller kinds are one constant each. Here every surface is held to them: MCP
 * publishes those very schemas, the served OpenAPI document's components are generated from them,
 * the GraphQL types (code-first classes) agree field by field — name, nullability, list-ness, type and
 * description — and the audit trail's CHECK constraint (frozen in a migration) names the same surfaces.
 */
import { GraphQLSchemaHost } from '@nestjs/graphql';
import {
  getNamedType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import request from 'supertest';
import { z } from 'zod';
import {
  answerWire,
  clarificationWire,
  assignedUserWire,
  bundleReadWire,
  pendingBundleWire,
  pendingPageWire,
  pendingQuestionWire,
  questionOptionWire,
  resolutionResponseWire,
  resolutionWire,
  resolvedByWire,
  routingViewWire,
  voteReceiptWire,
  voterWire,
  voteWire,
} from '#clarification';
import { AUDIT_SURFACES, mergedWireSchemas } from '#common';
import { ANSWER_TOOL, LIST_PENDING_TOOL, LIST_TASKS_TOOL } from '#mcp';
import { actionWire } from '#receipts';
import { taskPageWire, tasksWire, taskWire, workspacePageWire, workspaceWire } from '#tasks';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession } from '../../support/fixtures.js';
import { connectMcp } from '../../support/mcp.js';
import { ONE_QUESTION, PICK } from '../../support/routing.js';

type WireObject = z.ZodObject;

/** What GraphQL says differently from the wire, on purpose; anything else that differs fails. */
interface GraphqlShape {
  wire: WireObject;
  type: string;
  /** Wire fields GraphQL names otherwise or shapes otherwise: the GraphQL field and its full type. */
  own?: Record<string, { field: string; type: string }>;
  /** Wire fields GraphQL does not carry (the connection pages with pageInfo instead). */
  omitted?: string[];
  /** Fields only GraphQL has. */
  added?: string[];
}

const GRAPHQL_SHAPES: GraphqlShape[] = [
  { wire: resolutionWire, type: 'Resolution' },
  { wire: resolutionResponseWire, type: 'ResolutionResponse' },
  { wire: answerWire, type: 'Answer' },
  { wire: voteReceiptWire, type: 'VoteReceipt' },
  { wire: resolvedByWire, type: 'ResolvedBy' },
  {
    wire: pendingBundleWire,
    type: 'PendingBundle',
    own: { eligible: { field: 'eligible', type: 'Boolean!' } },
    added: ['receipt', 'resolvedBy', 'expiresAt', 'votes'],
  },
  { wire: pendingQuestionWire, type: 'PendingQuestion' },
  { wire: questionOptionWire, type: 'QuestionOption' },
  { wire: actionWire, type: 'Action', own: { arguments: { field: 'arguments', type: 'String!' } } },
  { wire: routingViewWire, type: 'Routing', own: { answerers: { field: 'answererIds', type: '[String!]' } } },
  { wire: assignedUserWire, type: 'AssignedUser' },
  { wire: voteWire, type: 'Vote' },
  { wire: voterWire, type: 'Voter' },
  { wire: pendingPageWire, type: 'PendingQuestionConnection', own: { bundles: { field: 'nodes', type: '[PendingBundle!]!' } }, omitted: ['next_cursor'], added: ['pageInfo'] },
  { wire: taskWire, type: 'Task' },
  { wire: taskPageWire, type: 'TaskConnection', own: { tasks: { field: 'nodes', type: '[Task!]!' } }, omitted: ['next_cursor'], added: ['count', 'pageInfo'] },
  { wire: workspaceWire, type: 'Workspace' },
  { wire: workspacePageWire, type: 'WorkspaceConnection', own: { workspaces: { field: 'nodes', type: '[Workspace!]!' } }, omitted: ['next_cursor'], added: ['count', 'pageInfo'] },
];

const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

function unwrapped(schema: z.ZodType): { inner: z.ZodType; nullable: boolean } {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return { inner: unwrapped(schema.unwrap() as z.ZodType).inner, nullable: true };
  return { inner: schema, nullable: false };
}

/** The GraphQL type a wire field must have: numbers are counts (Int), enums are Strings whose description names every value. */
function expectedType(schema: z.ZodType): string {
  const { inner, nullable } = unwrapped(schema);
  const bang = nullable ? '' : '!';
  if (inner instanceof z.ZodArray) return `[${expectedType(inner.element as z.ZodType)}]${bang}`;
  if (inner instanceof z.ZodObject) {
    // A described copy of a declaration (`.describe()` clones it) shares its shape.
    const shape = GRAPHQL_SHAPES.find((candidate) => candidate.wire.shape === inner.shape);
    if (!shape) throw new Error('a wire object without a GraphQL type in GRAPHQL_SHAPES');
    return `${shape.type}${bang}`;
  }
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) return `String${bang}`;
  if (inner instanceof z.ZodBoolean) return `Boolean${bang}`;
  if (inner instanceof z.ZodNumber) return `Int${bang}`;
  throw new Error(`no GraphQL type for a wire ${inner.constructor.name}`);
}

function typeString(type: GraphQLOutputType): string {
  if (isNonNullType(type)) return `${typeString(type.ofType)}!`;
  if (isListType(type)) return `[${typeString(type.ofType)}]`;
  return getNamedType(type).name;
}

/** Every difference between a GraphQL type and its wire declaration, as readable lines. */
function graphqlDrift(schema: GraphQLSchema, shape: GraphqlShape): string[] {
  const type = schema.getType(shape.type);
  if (!isObjectType(type)) return [`${shape.type}: not an object type of the schema`];
  const fields: Record<string, GraphQLField<unknown, unknown>> = (type as GraphQLObjectType).getFields();
  const drift: string[] = [];
  const seen = new Set(shape.added ?? []);
  if ((type.description ?? undefined) !== shape.wire.description) drift.push(`${shape.type}: description ${JSON.stringify(type.description)} ≠ ${JSON.stringify(shape.wire.description)}`);
  for (const [key, field] of Object.entries(shape.wire.shape) as [string, z.ZodType][]) {
    if (shape.omitted?.includes(key)) continue;
    const own = shape.own?.[key];
    const name = own?.field ?? camel(key);
    seen.add(name);
    const graphqlField = fields[name];
    if (!graphqlField) {
      drift.push(`${shape.type}.${name}: missing (wire ${key})`);
      continue;
    }
    const wanted = own?.type ?? expectedType(field);
    if (typeString(graphqlField.type) !== wanted) drift.push(`${shape.type}.${name}: ${typeString(graphqlField.type)} ≠ ${wanted}`);
    if (own === undefined && (graphqlField.description ?? undefined) !== field.description) {
      drift.push(`${shape.type}.${name}: description ${JSON.stringify(graphqlField.description)} ≠ ${JSON.stringify(field.description)}`);
    }
    const { inner } = unwrapped(field);
    if (inner instanceof z.ZodEnum) {
      const unnamed = inner.options.filter((value) => !String(graphqlField.description).includes(String(value)));
      if (unnamed.length > 0) drift.push(`${shape.type}.${name}: its description does not name ${unnamed.join(', ')}`);
    }
  }
  for (const name of Object.keys(fields)) if (!seen.has(name)) drift.push(`${shape.type}.${name}: not in the wire declaration`);
  return drift;
}

describe('one declaration per wire shape, held on every surface', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('GraphQL: each type agrees with its wire declaration field by field', () => {
    const schema = t.app.get(GraphQLSchemaHost).schema;
    expect(GRAPHQL_SHAPES.flatMap((shape) => graphqlDrift(schema, shape))).toEqual([]);
  });

  it('OpenAPI: the served document carries every wire shape exactly as generated from its declaration', async () => {
    const document = (await request(t.baseUrl).get('/docs/openapi.json').expect(200)).body as { components: { schemas: Record<string, unknown> } };
    const generated = mergedWireSchemas(tasksWire, clarificationWire);
    expect(Object.keys(generated).sort()).toEqual(
      [
        'ActionDoc',
        'AnswerDoc',
        'AssignedUserDoc',
        'BundleDoc',
        'ClarificationResponseDoc',
        'OptionDoc',
        'PendingBundleDoc',
        'PendingPageDoc',
        'PendingQuestionDoc',
        'QuestionDoc',
        'QuestionOptionDoc',
        'ResolutionResponseDoc',
        'ResolvedByDoc',
        'RespondResultDoc',
        'RoutingViewDoc',
        'TaskDoc',
        'TaskListDoc',
        'UserIdsDoc',
        'VoteDoc',
        'VoteReceiptDoc',
        'WorkspaceDoc',
        'WorkspaceListDoc',
      ].sort(),
    );
    for (const [name, schema] of Object.entries(generated)) expect({ name, schema: document.components.schemas[name] }).toEqual({ name, schema });
  });

  it("MCP: the answer tools publish the resolution, the lists the pending page and the task page, and show_question a bundle's read, as declared", async () => {
    const mcp = await connectMcp(t.baseUrl);
    try {
      const { tools } = await mcp.client.listTools();
      const published = new Map(tools.map((tool) => [tool.name, tool.outputSchema as { properties: Record<string, { description?: string }>; required?: string[] }]));
      for (const [tool, wire] of [
        [ANSWER_TOOL, resolutionWire],
        ['answer_question_in_app', resolutionWire],
        [LIST_PENDING_TOOL, pendingPageWire],
        ['show_question', bundleReadWire],
        [LIST_TASKS_TOOL, taskPageWire],
      ] as const) {
        const declared = z.toJSONSchema(wire, { target: 'draft-7', io: 'output' }) as { properties: Record<string, { description?: string }>; required: string[] };
        const schema = published.get(tool);
        expect({ tool, keys: Object.keys(schema?.properties ?? {}), required: schema?.required }).toEqual({ tool, keys: Object.keys(declared.properties), required: declared.required });
        for (const [key, property] of Object.entries(declared.properties)) expect({ tool, key, description: schema?.properties[key]?.description }).toEqual({ tool, key, description: property.description });
      }
    } finally {
      await mcp.close();
    }
  });

  it("a bundle's read: show_question's result passes its published schema and is exactly the REST read, action and votes included", async () => {
    const { sessionId } = await createRunningSession(t);
    const asked = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .send({ session_id: sessionId, questions: ONE_QUESTION, routing: { required_answers: 2 }, action: { name: 'deploy', arguments: { env: 'prod' } } })
      .expect(200);
    const pendingId = asked.body.pending_id as string;
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: PICK('postgres') }).expect(200);
    const mcp = await connectMcp(t.baseUrl);
    try {
      // Listed first: the client then holds every structured result to the tool's published output schema.
      await mcp.client.listTools();
      const shown = await mcp.call('show_question', { pending_id: pendingId });
      const read = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).expect(200);
      expect(read.body).toMatchObject({ action: { name: 'deploy' }, votes: [{ user: { kind: 'synthetic' }, surface: 'rest' }] });
      expect(shown.structured).toEqual(read.body);
    } finally {
      await mcp.close();
    }
  });

  it("the database: the audit trail's surface CHECK constraint names exactly the declared surfaces", async () => {
    const { rows } = await t.db.query<{ table: string; definition: string }>(
      `SELECT conrelid::regclass::text AS table, pg_get_constraintdef(oid) AS definition
         FROM pg_constraint WHERE contype = 'c' AND pg_get_constraintdef(oid) ~ '\\msurface\\M'`,
    );
    expect(rows.map((row) => row.table)).toEqual(['clarification_audit']);
    const named = [...rows[0].definition.matchAll(/'([^']+)'/g)].map((match) => match[1]);
    expect(named.sort()).toEqual([...AUDIT_SURFACES].sort());
  });
});
