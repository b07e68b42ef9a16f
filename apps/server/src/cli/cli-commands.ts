import type { INestApplicationContext } from '@nestjs/common';
import { ADMIN_CALLER, IdentityService, MembershipService } from '#authorization';
import { ReceiptKeysService } from '#receipts';
import { type WorkspaceRow, WorkspaceService, workspaceView } from '#tasks';
import { CliUsageError } from './cli-arguments.js';
import { type CliCommand, required } from './cli-command.js';
import { answersFrom } from './cli-answers.js';
import { listOutput, recordOutput } from './cli-output.js';
import { callServer, serverTarget } from './cli-server-client.js';
import { CHAT_COMMANDS } from './chat-commands.js';
import { WEBHOOK_COMMANDS } from './webhook-commands.js';

function integer(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliUsageError(`${flag} must be a positive integer (got "${value}")`);
  return Number(value);
}

const iso = (value: Date | null | undefined): string | null => (value ? value.toISOString() : null);

/** The CLI acts as the operator: it holds the database credentials, so it is the unscoped admin. */
const OPERATOR = ADMIN_CALLER;

function need(app: INestApplicationContext | undefined): INestApplicationContext {
  if (!app) throw new Error('this command needs the application');
  return app;
}

interface PendingPage {
  bundles: Array<{ pending_id: string; age_seconds: number; questions: Array<{ question_id: string; prompt: string; options: Array<{ option_id: string; label: string }> }> }>;
  count: number;
  next_cursor: string;
}

const SERVER_DETAILS = [
  'Talks to the running server as you: PARLEY_URL (or --url; default http://127.0.0.1:$PORT) and your token in PARLEY_TOKEN',
  '(a personal access token from tokens:create; none needed when the server runs with AUTH_MODE=disabled).',
];

export const COMMANDS: CliCommand[] = [
  {
    name: 'users:create',
    usage: 'users:create --name NAME',
    summary: 'create a user',
    details: ['Prints {id, name}. Give the user a token with tokens:create.'],
    context: 'identity',
    run: async (app, { values }) => {
      const user = await need(app).get(IdentityService).createUser(required(values.name, '--name', 'users:create --name NAME'));
      return recordOutput({ id: user.id, name: user.name });
    },
  },
  {
    name: 'users:list',
    usage: 'users:list',
    summary: 'list the users',
    details: ['Prints {users: [{id, name, created_at}]}, oldest first.'],
    context: 'identity',
    run: async (app) => {
      const users = await need(app).get(IdentityService).listUsers();
      return listOutput('users', users.map((user) => ({ id: user.id, name: user.name, created_at: iso(user.created_at) })));
    },
  },
  {
    name: 'tokens:create',
    usage: 'tokens:create --user USER_ID [--name NAME]',
    summary: 'create a personal access token (shown once)',
    details: ['Prints {id, user_id, token}. Only the token\'s SHA-256 is stored: copy it now.'],
    context: 'identity',
    run: async (app, { values }) => {
      const userId = required(values.user, '--user', 'tokens:create --user USER_ID [--name NAME]');
      const { row, token } = await need(app).get(IdentityService).createToken(userId, values.name ?? '');
      return recordOutput({ id: row.id, user_id: row.user_id, token });
    },
  },
  {
    name: 'tokens:list',
    usage: 'tokens:list [--user USER_ID]',
    summary: 'list tokens (never their secret)',
    details: ['Prints {tokens: [{id, user_id, name, created_at, last_used_at, revoked_at}]}, oldest first.'],
    context: 'identity',
    run: async (app, { values }) => {
      const tokens = await need(app).get(IdentityService).listTokens(values.user);
      return listOutput(
        'tokens',
        tokens.map((row) => ({
          id: row.id,
          user_id: row.user_id,
          name: row.name,
          created_at: iso(row.created_at),
          last_used_at: iso(row.last_used_at),
          revoked_at: iso(row.revoked_at),
        })),
      );
    },
  },
  {
    name: 'tokens:revoke',
    usage: 'tokens:revoke TOKEN_ID',
    summary: 'revoke a token (and end the browser sessions it opened)',
    details: ['Prints {id, revoked_at}. Revoking twice keeps the first time.'],
    context: 'identity',
    run: async (app, { positionals }) => {
      const row = await need(app).get(IdentityService).revokeToken(required(positionals[1], 'TOKEN_ID', 'tokens:revoke TOKEN_ID'));
      return recordOutput({ id: row.id, revoked_at: iso(row.revoked_at) });
    },
  },
  {
    name: 'workspaces:create',
    usage: 'workspaces:create --name NAME [--owner USER_ID]',
    summary: 'create a workspace (owned by USER_ID, or by nobody)',
    details: ['Prints {id, name, owner_id, created_at}. A workspace nobody owns is visible to every user.'],
    context: 'identity',
    run: async (app, { values }) => {
      const name = required(values.name, '--name', 'workspaces:create --name NAME [--owner USER_ID]');
      return recordOutput(workspaceView(await need(app).get(WorkspaceService).create(OPERATOR, name, values.owner)));
    },
  },
  {
    name: 'workspaces:list',
    usage: 'workspaces:list',
    summary: 'list the workspaces',
    details: ['Prints {workspaces: [{id, name, owner_id, created_at}]}, oldest first: every page of the list.'],
    context: 'identity',
    run: async (app) => {
      const service = need(app).get(WorkspaceService);
      const workspaces: WorkspaceRow[] = [];
      let cursor = '';
      do {
        const page = await service.list(OPERATOR, { cursor });
        workspaces.push(...page.workspaces);
        cursor = page.next_cursor;
      } while (cursor !== '');
      return listOutput('workspaces', workspaces.map(workspaceView));
    },
  },
  {
    name: 'members:add',
    usage: 'members:add --workspace WORKSPACE_ID --user USER_ID',
    summary: 'add a member to a workspace (idempotent): they see it as its owner does',
    details: ['Prints {workspace_id, user_id, name, added_at, added}; added is false when the user already was a member.'],
    context: 'identity',
    run: async (app, { values }) => {
      const usage = 'members:add --workspace WORKSPACE_ID --user USER_ID';
      const workspaceId = required(values.workspace, '--workspace', usage);
      const userId = required(values.user, '--user', usage);
      const { member, added } = await need(app).get(MembershipService).add(OPERATOR, workspaceId, userId, '--user');
      return recordOutput({ ...member, added });
    },
  },
  {
    name: 'members:list',
    usage: 'members:list --workspace WORKSPACE_ID',
    summary: "list a workspace's members",
    details: ['Prints {members: [{workspace_id, user_id, name, added_at}]}, oldest first (the owner is not listed).'],
    context: 'identity',
    run: async (app, { values }) => {
      const workspaceId = required(values.workspace, '--workspace', 'members:list --workspace WORKSPACE_ID');
      const members = await need(app).get(MembershipService).list(OPERATOR, workspaceId);
      return listOutput('members', members.map((member) => ({ ...member })));
    },
  },
  {
    name: 'members:remove',
    usage: 'members:remove --workspace WORKSPACE_ID --user USER_ID',
    summary: 'remove a member from a workspace (effective on their next request)',
    details: ['Prints {workspace_id, user_id, removed}; removed is false when the user was no member.'],
    context: 'identity',
    run: async (app, { values }) => {
      const usage = 'members:remove --workspace WORKSPACE_ID --user USER_ID';
      const workspaceId = required(values.workspace, '--workspace', usage);
      const userId = required(values.user, '--user', usage);
      return recordOutput({ ...(await need(app).get(MembershipService).remove(OPERATOR, workspaceId, userId, '--user')) });
    },
  },
  {
    name: 'questions:list',
    usage: 'questions:list [--workspace WORKSPACE_ID] [--limit N] [--cursor CURSOR] [--url URL]',
    summary: "list the pending questions you may answer, oldest first (the running server's REST API)",
    details: [
      'Prints {bundles: [...], count, next_cursor} — GET /api/v1/clarification, the list of list_pending_questions_kandev.',
      'The table shows one line per question: its bundle (pending_id), id, prompt and option ids.',
      ...SERVER_DETAILS,
    ],
    context: 'server',
    run: async (_app, { values }, env) => {
      const query = new URLSearchParams();
      if (values.workspace !== undefined) query.set('workspace_id', values.workspace);
      if (values.cursor !== undefined) query.set('cursor', values.cursor);
      if (values.limit !== undefined) query.set('limit', String(integer(values.limit, '--limit')));
      const suffix = query.size > 0 ? `?${query.toString()}` : '';
      const page = (await callServer(serverTarget(values.url, env), 'GET', `/api/v1/clarification${suffix}`)) as PendingPage;
      const rows = page.bundles.flatMap((bundle) =>
        bundle.questions.map((question) => ({
          pending_id: bundle.pending_id,
          question_id: question.question_id,
          prompt: question.prompt,
          options: question.options.map((option) => `${option.option_id} (${option.label})`).join(', '),
          age_seconds: String(bundle.age_seconds),
        })),
      );
      return { json: page, table: { rows, empty: 'nothing is pending', footer: page.next_cursor ? `next page: --cursor ${page.next_cursor}` : undefined } };
    },
  },
  {
    name: 'questions:answer',
    usage: 'questions:answer PENDING_ID (--answer QUESTION_ID=OPTION_ID[,OPTION_ID…] | --text QUESTION_ID=TEXT)… | --reject [--reason TEXT] [--url URL]',
    summary: 'answer (or reject) a pending bundle — exactly one answer wins, whichever surface it comes from',
    details: [
      'One answer per question: --answer picks option ids, --text answers in your own words (both may be given).',
      'Prints {success, claimed, status, response} (POST /api/v1/clarification/PENDING_ID/respond): claimed is false when another answer had already won (its answer is shown).',
      'Example: questions:answer 3f2… --answer database=postgres --answer deploy=staging',
      ...SERVER_DETAILS,
    ],
    context: 'server',
    run: async (_app, { positionals, values }, env) => {
      const usage = 'questions:answer PENDING_ID --answer QUESTION_ID=OPTION_ID … | --reject';
      const pendingId = required(positionals[1], 'PENDING_ID', usage);
      const body = values.reject
        ? { answers: [], rejected: true, reject_reason: values.reason ?? '' }
        : { answers: answersFrom(values.answer ?? [], values.text ?? []), rejected: false, reject_reason: '' };
      const result = await callServer(serverTarget(values.url, env), 'POST', `/api/v1/clarification/${encodeURIComponent(pendingId)}/respond`, body);
      return recordOutput(result as object);
    },
  },
  {
    name: 'migrations:run',
    usage: 'migrations:run',
    summary: 'apply pending migrations (every start-up does too)',
    details: ['Runs under the migrations advisory lock, so it is safe while replicas start.'],
    context: 'identity',
    run: () => Promise.resolve(recordOutput({ migrations: 'up to date' })),
  },
  {
    name: 'keys:rotate',
    usage: 'keys:rotate',
    summary: 'add a new receipt signing key (the old one stays published until its receipts expire)',
    details: [
      'Prints {kid, retired}: the new signing key and the one it replaces. Every replica signs with the new key',
      'within seconds; receipts signed with the old one verify until they expire (RECEIPT_TTL_SECONDS).',
    ],
    context: 'identity',
    run: async (app) => {
      const rotated = await need(app).get(ReceiptKeysService).rotate();
      return recordOutput({ kid: rotated.kid, retired: rotated.retired ?? null });
    },
  },
  {
    name: 'schema:write',
    usage: 'schema:write',
    summary: 'write the GraphQL SDL to schema.graphql and the OpenAPI document to docs/api/openapi.json',
    details: ['Regenerates the committed schema.graphql and docs/api/openapi.json (a test fails when either is stale).'],
    context: 'none',
    run: async () => {
      const [{ writeFile }, { buildSchemaSdl }, { buildOpenApiFile, OPENAPI_FILE }] = await Promise.all([
        import('node:fs/promises'),
        import('#graphql'),
        import('../http/openapi-file.js'),
      ]);
      await writeFile('schema.graphql', await buildSchemaSdl());
      await writeFile(OPENAPI_FILE, await buildOpenApiFile());
      return recordOutput({ written: `schema.graphql, ${OPENAPI_FILE}` });
    },
  },
  {
    name: 'sql:write',
    usage: 'sql:write',
    summary: "write every named statement's SQL to libs/<lib>/sql/",
    details: ['Regenerates the committed statement files (a test fails when one is stale).'],
    context: 'none',
    run: async () => {
      const { writeSqlFiles } = await import('./sql-files.js');
      return recordOutput({ written: await writeSqlFiles(process.cwd()) });
    },
  },
  ...WEBHOOK_COMMANDS,
  ...CHAT_COMMANDS,
];
