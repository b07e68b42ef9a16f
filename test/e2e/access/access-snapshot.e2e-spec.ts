/**
 * Every entry point with the access it requires (after Twenty's access snapshot): each REST
 * route of every controller, each GraphQL field and each MCP tool, read from the running app's
 * metadata. A new entry point changes this list, so it cannot arrive unguarded without a reviewer
 * seeing the line that says so. Requirements:
 * - `public`: @Public() — no identity needed;
 * - `caller`: the global AuthGuard resolves an identity (a PAT, a browser session; anyone while auth
 *   is disabled); `caller|agent`: the session agent token is accepted too; `admin`: admin only;
 * - `+task:<param>` / `+session:<param>`: the route's resource is authorized before the handler;
 * - GraphQL `caller`: the resolver takes @GqlCaller() (no identity ⇒ UNAUTHENTICATED);
 * - an MCP tool requires what its endpoint's route requires.
 */
import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { RATE_LIMITED } from '#rate-limit';
import { startApp, type TestApp } from '../../support/app.js';
import { classesOf, graphqlFields, joinPath, mcpTools, methodsOf, restRoutes } from '../../support/entry-points.js';

/**
 * Every REST route with the rate-limit budget it spends (@RateLimited), or `none`. Address budgets
 * (sign-in, refused credentials) are hooks outside the routes and GraphQL and MCP spend theirs per
 * field and per tool: this is the REST half, so a new route shows its budget, or its lack of one, here.
 */
function restBudgets(t: TestApp): string[] {
  return classesOf(t, 'controllers').flatMap((controller) =>
    methodsOf(controller).flatMap(([, handler]) => {
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) return [];
      const budget = (Reflect.getMetadata(RATE_LIMITED, handler) ?? Reflect.getMetadata(RATE_LIMITED, controller) ?? 'none') as string;
      const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
      return paths.map((route) => `${RequestMethod[method]} ${joinPath(Reflect.getMetadata(PATH_METADATA, controller) as string, route)} — ${budget}`);
    }),
  );
}

/**
 * Every method and path the HTTP server answers (HEAD aside: it mirrors GET), read from Fastify's
 * route tree — so a route registered past Nest (a plugin, a hook) shows up too.
 */
function fastifyRoutes(t: TestApp): string[] {
  const tree = (t.app.getHttpAdapter().getInstance()).printRoutes({ commonPrefix: false });
  const parents: string[] = [];
  return tree.split('\n').flatMap((line) => {
    const node = /^([│ ]*)[└├]── (\S+) \(([^)]*)\)$/.exec(line.replace(/\u00a0/g, ' '));
    if (!node) return [];
    const depth = (node[1]).length / 4;
    const segment = node[2];
    const parent = parents[depth - 1] ?? '';
    const route = segment.startsWith('/') ? `${parent.replace(/\/$/, '')}${segment}` : `${parent.replace(/\/$/, '')}/${segment}`;
    parents[depth] = route;
    parents.length = depth + 1;
    return (node[3]).split(', ').filter((method) => method !== 'HEAD').map((method) => `${method} ${route}`);
  });
}

describe('access snapshot: every entry point and what it requires', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('REST routes', () => {
    expect(restRoutes(t).sort()).toEqual(REST_ROUTES);
  });

  it('REST routes and the budget each spends: every answer, list, ask and creation route spends its own', () => {
    expect(restBudgets(t).sort()).toEqual(REST_BUDGETS);
  });

  it('GraphQL fields (and the schema has no field without a resolver method here)', () => {
    const { resolved, schema } = graphqlFields(t);
    expect(resolved).toEqual(GRAPHQL_FIELDS);
    expect(resolved.map((line) => line.split(' — ')[0])).toEqual(schema);
  });

  it('the HTTP server answers nothing else: every route is a controller route above, the GraphQL endpoint or a static file of the web bundle', () => {
    const controllerRoutes = new Set(restRoutes(t).map((line) => line.split(' — ')[0]));
    const served = fastifyRoutes(t);
    expect(served.length).toBeGreaterThan(controllerRoutes.size);
    const beyondControllers = served.filter((route) => !controllerRoutes.has(route));
    // GraphQL fields are listed above; the web bundle is static files, public by design, GET only (the
    // question's MCP App loads its script and style from question-app/); so is Swagger UI with the OpenAPI
    // document, which describes the routes above.
    const webBundle = (route: string) => /^GET \/(index\.html|assets\/[\w.-]+|question-app\/question\.(js|css))?$/.test(route);
    const apiDocs = (route: string) => /^GET \/docs(\/.*)?$/.test(route);
    expect(beyondControllers.filter((route) => !webBundle(route) && !apiDocs(route)).sort()).toEqual(['GET /graphql', 'POST /graphql']);
  });

  it('MCP tools, by endpoint (each requires what its route above requires)', async () => {
    expect(await mcpTools(t)).toEqual(MCP_TOOLS);
  });
});

const REST_ROUTES = [
  // Signing out needs no identity: it ends whatever browser session the cookie names.
  'DELETE /api/v1/admin/workspaces/:id/members/:userId — admin',
  'DELETE /api/v1/auth/session — public',
  'DELETE /api/v1/webhooks/:id — caller',
  'DELETE /api/v1/workspaces/:id/chat-destinations/:platform — caller',
  'DELETE /mcp — caller',
  // /mcp/session opts out of the guard and authenticates the session agent token itself (spec S2).
  'DELETE /mcp/session — public',
  'GET /.well-known/jwks.json — public',
  'GET /api/v1/admin/workspaces/:id/members — admin',
  'GET /api/v1/auth/session — caller',
  'GET /api/v1/clarification — caller',
  'GET /api/v1/clarification/:id — caller|agent',
  'GET /api/v1/clarification/:id/audit — caller',
  'GET /api/v1/clarification/:id/wait — caller|agent',
  'GET /api/v1/pending-interactions — caller',
  'GET /api/v1/sessions/:id — caller +session:id',
  'GET /api/v1/sessions/:id/messages — caller +session:id',
  'GET /api/v1/tasks — caller',
  'GET /api/v1/tasks/:id — caller +task:id',
  'GET /api/v1/webhooks/:id — caller',
  'GET /api/v1/webhooks/:id/deliveries — caller',
  'GET /api/v1/workspaces — caller',
  'GET /api/v1/workspaces/:id/chat-destinations — caller',
  'GET /api/v1/workspaces/:id/webhooks — caller',
  'GET /graphiql — public',
  'GET /graphiql/assets/:name — public',
  'GET /graphiql/assets/init.js — public',
  'GET /healthz — public',
  'GET /mcp — caller',
  'GET /mcp/session — public',
  'GET /metrics — admin',
  'GET /readyz — public',
  'PATCH /api/v1/sessions/:id — caller|agent +session:id',
  'PATCH /api/v1/webhooks/:id — caller',
  'POST /api/v1/admin/tokens/:id/revoke — admin',
  'POST /api/v1/admin/users — admin',
  'POST /api/v1/admin/users/:id/chat-links — admin',
  'POST /api/v1/admin/users/:id/tokens — admin',
  'POST /api/v1/admin/workspaces/:id/members — admin',
  // Signing in exchanges a token for a session cookie.
  'POST /api/v1/auth/session — public',
  'POST /api/v1/chat-links/confirm — caller',
  'POST /api/v1/clarification/:id/cancel — caller|agent',
  'POST /api/v1/clarification/:id/respond — caller',
  'POST /api/v1/clarification/request — caller|agent',
  'POST /api/v1/commands — caller',
  'POST /api/v1/connectors/slack/events — public',
  'POST /api/v1/connectors/telegram/webhook — public',
  // Only the identity that asked may spend a receipt (the service checks who; the agent's token may).
  'POST /api/v1/receipts/redeem — caller|agent',
  // Anyone holding a receipt may check it.
  'POST /api/v1/receipts/verify — public',
  'POST /api/v1/sessions/:id/turns — caller|agent +session:id',
  'POST /api/v1/sessions/:id/turns/:turnId/complete — caller|agent +session:id',
  'POST /api/v1/tasks — caller',
  'POST /api/v1/tasks/:id/archive — caller +task:id',
  'POST /api/v1/tasks/:id/sessions — caller +task:id',
  'POST /api/v1/workspaces — caller',
  'POST /api/v1/workspaces/:id/webhooks — caller',
  'POST /mcp — caller',
  'POST /mcp/session — public',
  'PUT /api/v1/workspaces/:id/chat-destinations/:platform — caller',
];
const GRAPHQL_FIELDS = [
  'Mutation.addWorkspaceMember — caller',
  'Mutation.answerQuestion — caller',
  'Mutation.createWebhook — caller',
  'Mutation.deleteWebhook — caller',
  'Mutation.rejectQuestion — caller',
  'Mutation.removeWorkspaceMember — caller',
  'Mutation.setChatDestination — caller',
  'Mutation.updateWebhook — caller',
  'Query.chatDestinations — caller',
  'Query.pendingQuestions — caller',
  'Query.question — caller',
  'Query.questionAudit — caller',
  'Query.questionEventsCursor — caller',
  'Query.taskConnection — caller',
  'Query.tasks — caller',
  'Query.webhookDeliveries — caller',
  'Query.webhooks — caller',
  'Query.workspaceConnection — caller',
  'Query.workspaceMembers — caller',
  'Query.workspaces — caller',
  'Subscription.questionEvents — caller',
];
const MCP_TOOLS = {
  '/mcp': ['answer_question_in_app', 'answer_question_kandev', 'list_pending_questions_kandev', 'list_tasks_kandev', 'show_question'],
  '/mcp/session': ['ask_user_question_kandev'],
};
/** `none` on /mcp: MCP spends per tool call, inside the endpoint (one unit per call in the request). */
const REST_BUDGETS = [
  "DELETE /api/v1/admin/workspaces/:id/members/:userId — none",
  "DELETE /api/v1/auth/session — none",
  "DELETE /api/v1/webhooks/:id — lists",
  "DELETE /api/v1/workspaces/:id/chat-destinations/:platform — lists",
  "DELETE /mcp — none",
  "DELETE /mcp/session — none",
  "GET /.well-known/jwks.json — none",
  "GET /api/v1/admin/workspaces/:id/members — none",
  "GET /api/v1/auth/session — none",
  "GET /api/v1/clarification — lists",
  "GET /api/v1/clarification/:id — none",
  "GET /api/v1/clarification/:id/audit — lists",
  "GET /api/v1/clarification/:id/wait — none",
  "GET /api/v1/pending-interactions — lists",
  "GET /api/v1/sessions/:id — none",
  "GET /api/v1/sessions/:id/messages — lists",
  "GET /api/v1/tasks — lists",
  "GET /api/v1/tasks/:id — none",
  "GET /api/v1/webhooks/:id — lists",
  "GET /api/v1/webhooks/:id/deliveries — lists",
  "GET /api/v1/workspaces — lists",
  "GET /api/v1/workspaces/:id/chat-destinations — lists",
  "GET /api/v1/workspaces/:id/webhooks — lists",
  "GET /graphiql — none",
  "GET /graphiql/assets/:name — none",
  "GET /graphiql/assets/init.js — none",
  "GET /healthz — none",
  "GET /mcp — none",
  "GET /mcp/session — none",
  "GET /metrics — none",
  "GET /readyz — none",
  "PATCH /api/v1/sessions/:id — none",
  "PATCH /api/v1/webhooks/:id — lists",
  "POST /api/v1/admin/tokens/:id/revoke — none",
  "POST /api/v1/admin/users — none",
  "POST /api/v1/admin/users/:id/chat-links — none",
  "POST /api/v1/admin/users/:id/tokens — none",
  "POST /api/v1/admin/workspaces/:id/members — none",
  "POST /api/v1/auth/session — none",
  "POST /api/v1/chat-links/confirm — creations",
  "POST /api/v1/clarification/:id/cancel — none",
  "POST /api/v1/clarification/:id/respond — answers",
  "POST /api/v1/clarification/request — asks",
  "POST /api/v1/commands — answers",
  "POST /api/v1/connectors/slack/events — none",
  "POST /api/v1/connectors/telegram/webhook — none",
  "POST /api/v1/receipts/redeem — verifications",
  "POST /api/v1/receipts/verify — verifications",
  "POST /api/v1/sessions/:id/turns — none",
  "POST /api/v1/sessions/:id/turns/:turnId/complete — none",
  "POST /api/v1/tasks — creations",
  "POST /api/v1/tasks/:id/archive — none",
  "POST /api/v1/tasks/:id/sessions — creations",
  "POST /api/v1/workspaces — creations",
  "POST /api/v1/workspaces/:id/webhooks — lists",
  "POST /mcp — none",
  "POST /mcp/session — none",
  "PUT /api/v1/workspaces/:id/chat-destinations/:platform — lists",
];
