import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { eventually } from './eventually.js';
import { OBSERVER, serverConnectionsThrough } from './fault-database.js';
import { isAlive, stablePort, tempDir } from './server-process.js';

/** Debian's packages (`apt-get install patroni haproxy python3-pysyncobj postgresql`; .ci/run does). */
export const PATRONI = '/usr/bin/patroni';
const RAFT_CONTROLLER = '/usr/bin/patroni_raft_controller';
const HAPROXY = '/usr/sbin/haproxy';
const SCOPE = 'parley-test';
const DATABASE = 'parley';
const MEMBERS = ['node1', 'node2'] as const;
export type MemberName = (typeof MEMBERS)[number];

export interface Member {
  name: MemberName;
  /** `leader`, `sync_standby`, `replica`. */
  role: string;
  state: string;
  timeline?: number;
}

/** The newest PostgreSQL server Debian installed (`/usr/lib/postgresql/<major>/bin`). */
function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((major) => existsSync(path.join(root, major, 'bin', 'postgres'))) : [];
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL server under ${root}: apt-get install -y postgresql (.ci/run does)`);
  return path.join(root, newest, 'bin');
}

/** PostgreSQL refuses to run as root: as root, Patroni (and so PostgreSQL) runs as Debian's `postgres` user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const [, , uid, gid] = execFileSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' }).trim().split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

interface Ports {
  postgres: Record<MemberName, number>;
  rest: Record<MemberName, number>;
  raft: Record<MemberName | 'witness', number>;
  haproxy: number;
}

/**
 * A real two-node PostgreSQL cluster as operators run one, on loopback ports: Patroni on its Raft store
 * (two members and a witness, `patroni_raft_controller`, so either member can win an election alone
 * with the witness), synchronous replication with `synchronous_mode_strict` (no commit returns unless
 * the standby has it), `primary_start_timeout: 0` (a leader whose postmaster dies fails over at once
 * rather than being restarted in place), and HAProxy sending connections to whichever member answers
 * Patroni's REST `/primary` with 200. `url` is HAProxy's: the only address the servers under test know.
 */
export class PatroniCluster {
  private readonly processes = new Map<string, ChildProcess>();
  readonly log: string[] = [];

  private constructor(
    private readonly dir: string,
    private readonly ports: Ports,
    private readonly owner: { uid: number; gid: number } | undefined,
  ) {}

  static async start(): Promise<PatroniCluster> {
    for (const binary of [PATRONI, RAFT_CONTROLLER, HAPROXY]) {
      if (!existsSync(binary)) throw new Error(`${binary} is missing: apt-get install -y patroni haproxy python3-pysyncobj (.ci/run does)`);
    }
    // Members are stopped and started again on their ports; no two of them get the same one.
    const taken = new Set<number>();
    const port = async (): Promise<number> => {
      const candidate = await stablePort();
      if (taken.has(candidate)) return port();
      taken.add(candidate);
      return candidate;
    };
    const ports: Ports = {
      postgres: { node1: await port(), node2: await port() },
      rest: { node1: await port(), node2: await port() },
      raft: { node1: await port(), node2: await port(), witness: await port() },
      haproxy: await port(),
    };
    const dir = await tempDir('parley-patroni-');
    const cluster = new PatroniCluster(dir, ports, runAs());
    await cluster.writeConfig();
    cluster.spawnWitness();
    cluster.startMember('node1');
    await cluster.waitFor((members) => members.some((member) => member.role === 'leader' && member.state === 'running'), 60_000, 'node1 bootstrapped as leader');
    cluster.startMember('node2');
    await cluster.healthy(90_000);
    cluster.spawnHaproxy();
    // HAProxy starts with every server up until its checks say otherwise: wait for them to exclude the standby.
    const primaryThroughHaproxy = async () => {
      const [row] = await cluster.queryAt<{ standby: boolean }>(cluster.urlOf(ports.haproxy, 'postgres'), 'SELECT pg_is_in_recovery() AS standby', []);
      return row?.standby === false;
    };
    for (let routedToPrimary = 0; routedToPrimary < 6; ) {
      routedToPrimary = (await primaryThroughHaproxy().catch(() => false)) ? routedToPrimary + 1 : 0;
      await delay(250);
    }
    await cluster.admin(`CREATE DATABASE ${DATABASE}`);
    return cluster;
  }

  /** HAProxy's address, database `parley`, as the cluster's superuser (the loopback is trusted). */
  get url(): string {
    return this.urlOf(this.ports.haproxy, DATABASE);
  }

  /** A member's own PostgreSQL (not through HAProxy). */
  memberUrl(name: MemberName): string {
    return this.urlOf(this.ports.postgres[name], DATABASE);
  }

  /** Patroni's view of the cluster, from the first member whose REST API answers. */
  async members(): Promise<Member[]> {
    for (const name of MEMBERS) {
      const response = await fetch(`http://127.0.0.1:${this.ports.rest[name]}/cluster`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
      if (response?.ok) return ((await response.json()) as { members: Member[] }).members;
    }
    return [];
  }

  async leader(): Promise<MemberName> {
    return eventually(async () => (await this.members()).find((member) => member.role === 'leader' && member.state === 'running')?.name, 30_000, 'a running leader');
  }

  /** A running leader and a streaming synchronous standby. */
  async healthy(timeoutMs = 60_000): Promise<Member[]> {
    return this.waitFor(
      (members) =>
        members.some((member) => member.role === 'leader' && member.state === 'running') &&
        members.some((member) => member.role === 'sync_standby' && (member.state === 'running' || member.state === 'streaming')),
      timeoutMs,
      'a leader and a synchronous standby',
    );
  }

  /** `kill -9` of the leader's postmaster (its Patroni stays up). Returns the member that led. */
  async killLeaderPostmaster(): Promise<MemberName> {
    const leader = await this.leader();
    const [pidLine] = (await readFile(path.join(this.dir, leader, 'data', 'postmaster.pid'), 'utf8')).split('\n');
    process.kill(Number(pidLine), 'SIGKILL');
    return leader;
  }

  /** Stops a member as an operator does: SIGTERM to its Patroni, which shuts its PostgreSQL down. */
  async stopMember(name: MemberName): Promise<void> {
    const child = this.processes.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.kill('SIGTERM');
    await Promise.race([exited, delay(30_000).then(() => child.kill('SIGKILL'))]);
    this.processes.delete(name);
  }

  startMember(name: MemberName): void {
    this.spawnOwned(name, PATRONI, [path.join(this.dir, `${name}.yml`)]);
  }

  /** One statement through HAProxy (the leader) on a connection of its own. */
  async query<T extends pg.QueryResultRow>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    return this.queryAt(this.url, sql, parameters);
  }

  /** One statement on a member's own PostgreSQL. */
  async queryMember<T extends pg.QueryResultRow>(name: MemberName, sql: string, parameters: unknown[] = []): Promise<T[]> {
    return this.queryAt(this.memberUrl(name), sql, parameters);
  }

  /** Connections the servers under test hold on the leader, by application_name (`parley`, `parley-listener`). */
  async serverConnections(): Promise<Record<string, number>> {
    return serverConnectionsThrough((sql, parameters) => this.query(sql, parameters));
  }

  /** Everything stopped (Patroni stops its PostgreSQL; leftovers killed) and the directory removed. */
  async remove(): Promise<void> {
    for (const name of MEMBERS) await this.stopMember(name).catch(() => undefined);
    for (const child of this.processes.values()) child.kill('SIGKILL');
    for (const name of MEMBERS) {
      const pidFile = path.join(this.dir, name, 'data', 'postmaster.pid');
      const pid = existsSync(pidFile) ? Number((await readFile(pidFile, 'utf8')).split('\n')[0]) : 0;
      if (pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    await rm(this.dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 500 });
  }

  private urlOf(port: number, database: string): string {
    return `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
  }

  private async admin(sql: string): Promise<void> {
    await this.queryAt(this.urlOf(this.ports.haproxy, 'postgres'), sql, []);
  }

  private async queryAt<T extends pg.QueryResultRow>(url: string, sql: string, parameters: unknown[]): Promise<T[]> {
    const client = new pg.Client({ connectionString: url, application_name: OBSERVER, connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<T>(sql, parameters)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async waitFor(test: (members: Member[]) => boolean, timeoutMs: number, what: string): Promise<Member[]> {
    return eventually(
      async () => {
        const members = await this.members();
        return test(members) ? members : undefined;
      },
      timeoutMs,
      `${what} (cluster: ${this.log.slice(-20).join('')})`,
    );
  }

  private async writeConfig(): Promise<void> {
    const { dir, ports } = this;
    const binDir = postgresBinDir();
    // Every parent must be traversable by the `postgres` user; the data directories are its own.
    await chmod(dir, 0o755);
    for (const name of MEMBERS) {
      const partners = [...MEMBERS.filter((other) => other !== name).map((other) => ports.raft[other]), ports.raft.witness];
      await mkdir(path.join(dir, name), { recursive: true });
      await writeFile(
        path.join(dir, `${name}.yml`),
        JSON.stringify({
          scope: SCOPE,
          name,
          log: { level: 'WARNING' },
          restapi: { listen: `127.0.0.1:${ports.rest[name]}`, connect_address: `127.0.0.1:${ports.rest[name]}` },
          raft: { data_dir: path.join(dir, name, 'raft'), self_addr: `127.0.0.1:${ports.raft[name]}`, partner_addrs: partners.map((p) => `127.0.0.1:${p}`) },
          bootstrap: {
            dcs: {
              // loop_wait + 2 × retry_timeout ≤ ttl, as Patroni requires.
              ttl: 10,
              loop_wait: 1,
              retry_timeout: 4,
              primary_start_timeout: 0,
              synchronous_mode: true,
              synchronous_mode_strict: true,
              postgresql: {
                use_pg_rewind: true,
                parameters: { wal_level: 'replica', hot_standby: 'on', max_wal_senders: 10, max_replication_slots: 10, wal_log_hints: 'on', max_connections: 200 },
              },
            },
            initdb: [{ encoding: 'UTF8' }, { locale: 'C' }],
          },
          postgresql: {
            listen: `127.0.0.1:${ports.postgres[name]}`,
            connect_address: `127.0.0.1:${ports.postgres[name]}`,
            data_dir: path.join(dir, name, 'data'),
            bin_dir: binDir,
            pgpass: path.join(dir, name, 'pgpass'),
            pg_hba: ['local all all trust', 'host replication all 127.0.0.1/32 trust', 'host all all 127.0.0.1/32 trust'],
            authentication: {
              superuser: { username: 'postgres', password: 'postgres' },
              replication: { username: 'replicator', password: 'replicator' },
              rewind: { username: 'postgres', password: 'postgres' },
            },
            parameters: { unix_socket_directories: path.join(dir, name) },
          },
        }),
      );
    }
    await writeFile(
      path.join(dir, 'witness.yml'),
      JSON.stringify({
        raft: {
          data_dir: path.join(dir, 'witness'),
          self_addr: `127.0.0.1:${ports.raft.witness}`,
          partner_addrs: MEMBERS.map((name) => `127.0.0.1:${ports.raft[name]}`),
        },
      }),
    );
    await mkdir(path.join(dir, 'witness'), { recursive: true });
    await writeFile(
      path.join(dir, 'haproxy.cfg'),
      [
        'global',
        '  maxconn 400',
        'defaults',
        '  mode tcp',
        '  timeout connect 2s',
        '  timeout client 30m',
        '  timeout server 30m',
        '  timeout check 1s',
        'listen primary',
        `  bind 127.0.0.1:${ports.haproxy}`,
        '  option httpchk OPTIONS /primary',
        '  http-check expect status 200',
        // A member that stops answering /primary is out within a second, and its open connections are cut.
        '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
        ...MEMBERS.map((name) => `  server ${name} 127.0.0.1:${ports.postgres[name]} maxconn 200 check port ${ports.rest[name]}`),
        '',
      ].join('\n'),
    );
    if (this.owner) await chownTree(dir, this.owner);
  }

  private spawnWitness(): void {
    this.spawnOwned('witness', RAFT_CONTROLLER, [path.join(this.dir, 'witness.yml')]);
  }

  private spawnHaproxy(): void {
    this.track('haproxy', spawn(HAPROXY, ['-f', path.join(this.dir, 'haproxy.cfg'), '-db'], { stdio: ['ignore', 'pipe', 'pipe'] }));
  }

  private spawnOwned(name: string, binary: string, args: string[]): void {
    this.track(name, spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: this.dir, ...(this.owner ?? {}), env: { ...process.env, HOME: this.dir } }));
  }

  private track(name: string, child: ChildProcess): void {
    const record = (chunk: Buffer) => {
      this.log.push(`[${name}] ${chunk.toString('utf8')}`);
      if (this.log.length > 500) this.log.shift();
    };
    child.stdout?.on('data', record);
    child.stderr?.on('data', record);
    this.processes.set(name, child);
  }
}

async function chownTree(dir: string, owner: { uid: number; gid: number }): Promise<void> {
  await chown(dir, owner.uid, owner.gid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(full, owner);
    else await chown(full, owner.uid, owner.gid);
  }
}
