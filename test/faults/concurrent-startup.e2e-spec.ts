import { MIGRATIONS } from '../../migrations/index.js';
import { createTestDatabase, openPool } from '../support/database.js';
import { freePort, killAllServers, launchServer, logLines, stopServer, tempDir, waitHealthy } from '../support/server-process.js';

/**
 * Replicas (or the compose file) starting together on an empty database. Before the
 * migrations were serialized, two processes racing on the catalog failed one time in three
 * (`duplicate key … pg_type_typname_nsp_index`); so three processes start at once, several times.
 */

const PROCESSES = 3;
const ROUNDS = 3;
const MIGRATION_NAMES = MIGRATIONS.map((Migration) => new Migration().name ?? Migration.name);

afterAll(killAllServers);

describe('concurrent start-up on an empty database', () => {
  it.each(Array.from({ length: ROUNDS }, (_, round) => round + 1))(
    'round %i: three servers started at once all become healthy, and each migration is applied exactly once',
    async () => {
      const url = await createTestDatabase();
      const servers = [];
      for (let i = 0; i < PROCESSES; i += 1) {
        servers.push(launchServer({ dataDir: await tempDir(), port: await freePort(), env: { DATABASE_URL: url } }));
      }
      await Promise.all(servers.map(waitHealthy));

      const db = openPool(url, 1);
      try {
        const { rows } = await db.query<{ name: string }>('SELECT name FROM migrations ORDER BY id');
        expect(rows.map((row) => row.name)).toEqual(MIGRATION_NAMES);
      } finally {
        await db.end();
      }
      const applied = servers.flatMap((server) => logLines(server.output.stdout).map((line) => line.msg).filter((message) => String(message).startsWith('applied migrations')));
      expect(applied).toEqual([`applied migrations: ${MIGRATION_NAMES.join(', ')}`]);

      const exits = await Promise.all(servers.map((server) => stopServer(server)));
      expect(exits).toEqual(servers.map(() => ({ code: 0, signal: null })));
      expect(servers.flatMap((server) => logLines(server.output.stderr, 'fatal'))).toEqual([]);
    },
    60_000,
  );
});
