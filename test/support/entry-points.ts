/**
 * Every entry point of the running app, read from its metadata: each REST route of every controller
 * with the access it requires, each GraphQL field, each MCP tool by endpoint and each connector
 * command. The access snapshot (test/e2e/access/access-snapshot.e2e-spec.ts) pins what each requires;
 * the access matrix (test/e2e/access/matrix.e2e-spec.ts) states what each caller gets from each.
 *
 * Access, as `restRoutes` and `graphqlFields` name it:
 * - `public`: @Public() — no identity needed;
 * - `caller`: the global AuthGuard resolves an identity (a PAT, a browser session; anyone while auth
 *   is disabled); `caller|agent`: the session agent token is accepted too; `admin`: admin only;
 * - `+task:<param>` / `+session:<param>`: the route's resource is authorized before the handler;
 * - GraphQL `caller`: the resolver takes @GqlCaller() (no identity ⇒ UNAUTHENTICATED).
 */
import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import request from 'supertest';
import { AcceptsSessionAgent, AdminOnly, RequireAccess } from '#authorization';
import { Public } from '#common';
import { GqlCaller } from '../../libs/graphql/src/graphql-caller.js';
import { TEST_ADMIN_TOKEN, type TestApp } from './app.js';
import { createRunningSession } from './fixtures.js';
import { connectMcp } from './mcp.js';

export type Handler = (...args: unknown[]) => unknown;
type Decorate = (target: object, key: string, descriptor: PropertyDescriptor) => void;

/** The metadata key a decorator writes, learned by applying it to a probe (the keys are private). */
function keyOf(decorator: Decorate): string {
  class Probe {
    handler(): void {}
  }
  const descriptor = Object.getOwnPropertyDescriptor(Probe.prototype, 'handler') as PropertyDescriptor;
  decorator(Probe.prototype, 'handler', descriptor);
  return Reflect.getMetadataKeys(descriptor.value as object)[0] as string;
}

/** The factory @GqlCaller() registers for a parameter, learned from a probe. */
function gqlCallerFactory(): unknown {
  class Probe {
    handler(_caller: unknown): void {}
  }
  GqlCaller()(Probe.prototype, 'handler', 0);
  return Object.values(Reflect.getMetadata(ROUTE_ARGS_METADATA, Probe, 'handler') as Record<string, { factory?: unknown }>)[0]?.factory;
}

const KEYS = {
  public: keyOf(Public()),
  admin: keyOf(AdminOnly()),
  agent: keyOf(AcceptsSessionAgent()),
  resource: keyOf(RequireAccess('task')),
};

export function classesOf(t: TestApp, kind: 'controllers' | 'providers'): Array<new (...args: never[]) => unknown> {
  const classes = new Set<new (...args: never[]) => unknown>();
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module[kind].values()) {
      if (typeof wrapper.metatype === 'function' && wrapper.metatype.prototype) classes.add(wrapper.metatype as new (...args: never[]) => unknown);
    }
  }
  return [...classes];
}

export function methodsOf(type: new (...args: never[]) => unknown): Array<[string, Handler]> {
  // Descriptors, not property reads: a prototype's getters must not run.
  const prototype = type.prototype as object;
  return Object.getOwnPropertyNames(prototype).flatMap((name) => {
    const value: unknown = Object.getOwnPropertyDescriptor(prototype, name)?.value;
    return name !== 'constructor' && typeof value === 'function' ? [[name, value as Handler] as [string, Handler]] : [];
  });
}

export const joinPath = (...parts: Array<string | undefined>) =>
  `/${parts.flatMap((part) => (part ?? '').split('/')).filter(Boolean).join('/')}`;

/** Every REST route of every controller as `METHOD /path — access`. */
export function restRoutes(t: TestApp): string[] {
  return classesOf(t, 'controllers').flatMap((controller) =>
    methodsOf(controller).flatMap(([, handler]) => {
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) return [];
      const on = (key: string) => Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller);
      const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
      const resource = Reflect.getMetadata(KEYS.resource, handler) as { kind: string; param: string } | undefined;
      const access = on(KEYS.public)
        ? 'public'
        : `${on(KEYS.admin) ? 'admin' : on(KEYS.agent) ? 'caller|agent' : 'caller'}${resource ? ` +${resource.kind}:${resource.param}` : ''}`;
      return paths.map((route) => `${RequestMethod[method]} ${joinPath(Reflect.getMetadata(PATH_METADATA, controller) as string, route)} — ${access}`);
    }),
  );
}

/** Every Query, Mutation and Subscription resolver method as `Type.field — access`, and every root field of the schema. */
export function graphqlFields(t: TestApp): { resolved: string[]; schema: string[] } {
  const callerFactory = gqlCallerFactory();
  const resolved = classesOf(t, 'providers').flatMap((resolver) =>
    methodsOf(resolver).flatMap(([name, handler]) => {
      const type = Reflect.getMetadata('graphql:resolver_type', handler) as string | undefined;
      if (type !== 'Query' && type !== 'Mutation' && type !== 'Subscription') return [];
      const field = (Reflect.getMetadata('graphql:resolver_name', handler) as string | undefined) ?? name;
      const parameters = Object.values((Reflect.getMetadata(ROUTE_ARGS_METADATA, resolver, name) ?? {}) as Record<string, { factory?: unknown }>);
      const access = parameters.some((parameter) => parameter.factory === callerFactory) ? 'caller' : 'public';
      return [`${type}.${field} — ${access}`];
    }),
  );
  const schema = t.app.get(GraphQLSchemaHost).schema;
  const fields = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((root) =>
    root ? Object.keys(root.getFields()).map((field) => `${root.name}.${field}`) : [],
  );
  return { resolved: resolved.sort(), schema: fields.sort() };
}

/** The tools each MCP endpoint lists: `/mcp` to the admin, `/mcp/session` to a new session's agent. */
export async function mcpTools(t: TestApp): Promise<Record<'/mcp' | '/mcp/session', string[]>> {
  const external = await connectMcp(t.baseUrl, { bearer: TEST_ADMIN_TOKEN });
  const fixture = await createRunningSession(t, { bearer: TEST_ADMIN_TOKEN });
  const session = await connectMcp(t.baseUrl, { bearer: fixture.agentToken, path: '/mcp/session' });
  try {
    const names = async (connection: typeof external) => (await connection.client.listTools()).tools.map((tool) => tool.name).sort();
    return { '/mcp': await names(external), '/mcp/session': await names(session) };
  } finally {
    await Promise.all([external.close(), session.close()]);
  }
}

/**
 * The actions `POST /api/v1/commands` accepts, as the running app states them: a command naming an
 * action it does not know is refused with a message that names every action it does
 * (`action must be "answer_decision"`).
 */
export async function commandActions(t: TestApp): Promise<string[]> {
  const res = await request(t.baseUrl)
    .post('/api/v1/commands')
    .set('authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
    .send({ schema_version: 1, action: 'no-such-action-probe' });
  const message = (res.body as { error?: { message?: string } }).error?.message ?? '';
  const actions = /^action must be (.*)$/.exec(message)?.[1]?.match(/"[^"]+"/g)?.map((quoted) => quoted.slice(1, -1)) ?? [];
  if (actions.length === 0) throw new Error(`the commands endpoint named no action: ${res.status} ${res.text}`);
  return actions.sort();
}

/**
 * Every entry point by the key the access matrix names it with: `METHOD /path` (REST),
 * `Type.field` (GraphQL), `mcp:<tool>` (MCP, both endpoints), `command:<action>` (connector commands).
 */
export async function entryPointKeys(t: TestApp): Promise<string[]> {
  const tools = await mcpTools(t);
  return [
    ...restRoutes(t).map((line) => line.split(' — ')[0]),
    ...graphqlFields(t).schema,
    ...[...tools['/mcp'], ...tools['/mcp/session']].map((tool) => `mcp:${tool}`),
    ...(await commandActions(t)).map((action) => `command:${action}`),
  ].sort();
}
