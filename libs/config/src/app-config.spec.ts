import path from 'node:path';
import { type AppConfig, ConfigError, isLoopbackHost, loadConfig, LOG_LEVELS, unauthenticatedNetworkWarning } from './app-config.js';

/** The error loadConfig throws for `env`, or a failure when it does not throw a ConfigError. */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not throw`);
}

const ALLOWED_HOSTS_DETAIL = (host: string) =>
  `must be a comma-separated list of host names like parley.example.com, parley.internal:8080 or .example.com (got "${host}")`;

const TRUST_PROXY_DETAIL = (value: string) =>
  `must be true, false, a hop count between 1 and 100, or a comma-separated list of proxy addresses and CIDR ranges like 10.0.0.2 or 172.30.80.0/24 (got "${value}")`;

describe('loadConfig', () => {
  describe('defaults', () => {
    it('uses the documented defaults for an empty environment', () => {
      const config = loadConfig({});
      expect({
        port: config.port,
        host: config.host,
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        authMode: config.authMode,
        adminToken: config.adminToken,
        logLevel: config.logLevel,
        bodyLimitBytes: config.bodyLimitBytes,
      }).toEqual({
        port: 3000,
        host: '127.0.0.1',
        databaseUrl: undefined,
        dataDir: path.resolve('./.parley'),
        authMode: 'disabled',
        adminToken: undefined,
        logLevel: 'info',
        bodyLimitBytes: 1024 * 1024,
      });
      expect(path.isAbsolute(config.dataDir)).toBe(true);
    });

    it('uses the documented clarification timing defaults', () => {
      const config = loadConfig({});
      expect({
        waitTimeoutMs: config.waitTimeoutMs,
        askProgressIntervalMs: config.askProgressIntervalMs,
        askTimeoutMs: config.askTimeoutMs,
        resumeWebhookUrl: config.resumeWebhookUrl,
        resumeTimeoutMs: config.resumeTimeoutMs,
        deliveryConfirmTimeoutMs: config.deliveryConfirmTimeoutMs,
      }).toEqual({
        waitTimeoutMs: 60_000,
        askProgressIntervalMs: 20_000,
        askTimeoutMs: 2 * 3_600_000,
        resumeWebhookUrl: undefined,
        resumeTimeoutMs: 30_000,
        deliveryConfirmTimeoutMs: 5_000,
      });
    });

    it('uses the documented GraphQL, MCP and rate-limit defaults; GraphiQL follows AUTH_MODE unless GRAPHIQL says otherwise', () => {
      const config = loadConfig({});
      expect(config.graphql).toEqual({ graphiql: true, maxCost: 60_000, maxRootLists: 10, maxTokens: 5_000 });
      expect(config.mcp).toEqual({ maxBatch: 20, maxPageBudget: 1_000 });
      expect(config.rateLimits).toEqual({ windowSeconds: 60, signIn: 20, failedCredentials: 30, answers: 600, lists: 1_200, asks: 600, creations: 120, verifications: 600 });
      expect(config.rateLimitStore).toBe('postgres');
      expect(loadConfig({ RATE_LIMIT_STORE: 'Memory' }).rateLimitStore).toBe('memory');
      expect(loadConfig({ AUTH_MODE: 'enabled' }).graphql.graphiql).toBe(false);
      expect(loadConfig({ AUTH_MODE: 'enabled', GRAPHIQL: 'true' }).graphql.graphiql).toBe(true);
      expect(loadConfig({ GRAPHIQL: 'FALSE' }).graphql.graphiql).toBe(false);
    });

    it('uses the documented security defaults', () => {
      const config = loadConfig({});
      expect({
        publicUrl: config.publicUrl,
        allowUnauthenticatedNetwork: config.allowUnauthenticatedNetwork,
        browserSessionIdleTimeoutMs: config.browserSessionIdleTimeoutMs,
        browserSessionMaxAgeMs: config.browserSessionMaxAgeMs,
        requestTimeoutMs: config.requestTimeoutMs,
        headersTimeoutMs: config.headersTimeoutMs,
        keepAliveTimeoutMs: config.keepAliveTimeoutMs,
        trustProxy: config.trustProxy,
      }).toEqual({
        publicUrl: undefined,
        allowUnauthenticatedNetwork: false,
        browserSessionIdleTimeoutMs: 12 * 3_600_000,
        browserSessionMaxAgeMs: 7 * 24 * 3_600_000,
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 10_000,
        keepAliveTimeoutMs: 5_000,
        trustProxy: false,
      });
    });

    it('treats empty and blank values as unset', () => {
      const blank = { PORT: '', HOST: '  ', DATABASE_URL: '', DATA_DIR: ' ', AUTH_MODE: '', ADMIN_TOKEN: '   ', LOG_LEVEL: '\t', BODY_LIMIT_BYTES: '' };
      expect(loadConfig(blank)).toEqual(loadConfig({}));
    });

    it('ignores unrelated variables', () => {
      expect(loadConfig({ PATH: '/bin', SOMETHING_ELSE: 'x' })).toEqual(loadConfig({}));
    });

    it('reads process.env when no environment is given', () => {
      const saved = process.env.PORT;
      process.env.PORT = '4321';
      try {
        expect(loadConfig().port).toBe(4321);
      } finally {
        if (saved === undefined) delete process.env.PORT;
        else process.env.PORT = saved;
      }
    });
  });

  describe('parsing', () => {
    it.each([
      ['8080', 8080],
      [' 8080 ', 8080],
      ['0', 0],
      ['1', 1],
      ['65535', 65535],
    ])('PORT=%j ⇒ %d', (value, expected) => {
      expect(loadConfig({ PORT: value }).port).toBe(expected);
    });

    it.each([
      ['0.0.0.0', '0.0.0.0'],
      ['::1', '::1'],
      [' localhost ', 'localhost'],
    ])('HOST=%j ⇒ %j', (value, expected) => {
      expect(loadConfig({ HOST: value, AUTH_MODE: 'enabled' }).host).toBe(expected);
    });

    it.each([
      'postgres://user:secret@db.example.com:5432/parley',
      'postgresql://localhost/parley?sslmode=disable',
    ])('DATABASE_URL=%s is kept as given', (value) => {
      expect(loadConfig({ DATABASE_URL: value }).databaseUrl).toBe(value);
    });

    it('ALLOWED_HOSTS is a lower-cased list of names, name:port, .domain, IPv4 and [IPv6] entries (none by default)', () => {
      expect(loadConfig({}).allowedHosts).toEqual([]);
      expect(loadConfig({ ALLOWED_HOSTS: ' Parley.Example.com, parley.internal:8080,,.corp.example, 10.0.0.5, [fd00::1]:3000 ' }).allowedHosts).toEqual([
        'parley.example.com',
        'parley.internal:8080',
        '.corp.example',
        '10.0.0.5',
        '[fd00::1]:3000',
      ]);
    });

    it('behind PgBouncer: DATABASE_LISTEN_URL and DATABASE_PREPARED_STATEMENTS (unset ⇒ DATABASE_URL, true)', () => {
      expect(loadConfig({})).toMatchObject({ databaseListenUrl: undefined, databasePreparedStatements: true });
      expect(
        loadConfig({ DATABASE_URL: 'postgres://pgbouncer:6432/parley', DATABASE_LISTEN_URL: 'postgres://db:5432/parley', DATABASE_PREPARED_STATEMENTS: 'false' }),
      ).toMatchObject({ databaseUrl: 'postgres://pgbouncer:6432/parley', databaseListenUrl: 'postgres://db:5432/parley', databasePreparedStatements: false });
    });

    it('DATABASE_URL is trimmed', () => {
      expect(loadConfig({ DATABASE_URL: ' postgres://localhost/parley ' }).databaseUrl).toBe('postgres://localhost/parley');
    });

    it('DATA_DIR is resolved against the working directory, absolute paths kept', () => {
      expect(loadConfig({ DATA_DIR: 'var/data' }).dataDir).toBe(path.resolve('var/data'));
      expect(loadConfig({ DATA_DIR: '/srv/parley' }).dataDir).toBe('/srv/parley');
      expect(loadConfig({ DATA_DIR: '/srv/parley/../other/' }).dataDir).toBe('/srv/other');
    });

    it.each([
      ['disabled', 'disabled'],
      ['enabled', 'enabled'],
      ['ENABLED', 'enabled'],
      [' Disabled ', 'disabled'],
    ])('AUTH_MODE=%j ⇒ %s', (value, expected) => {
      expect(loadConfig({ AUTH_MODE: value }).authMode).toBe(expected);
    });

    it('ADMIN_TOKEN of 24 characters or more is kept', () => {
      expect(loadConfig({ ADMIN_TOKEN: 'a'.repeat(24) }).adminToken).toBe('a'.repeat(24));
      expect(loadConfig({ ADMIN_TOKEN: ` ${'b'.repeat(40)} ` }).adminToken).toBe('b'.repeat(40));
    });

    it.each(LOG_LEVELS.map((level) => [level, level]))('LOG_LEVEL=%s', (value, expected) => {
      expect(loadConfig({ LOG_LEVEL: value }).logLevel).toBe(expected);
    });

    it('LOG_LEVEL is case-insensitive', () => {
      expect(loadConfig({ LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug');
    });

    it.each([
      ['1024', 1024],
      ['2048', 2048],
      [String(64 * 1024 * 1024), 64 * 1024 * 1024],
    ])('BODY_LIMIT_BYTES=%s ⇒ %d', (value, expected) => {
      expect(loadConfig({ BODY_LIMIT_BYTES: value }).bodyLimitBytes).toBe(expected);
    });

    it.each([
      ['WAIT_TIMEOUT_MS', 'waitTimeoutMs'],
      ['ASK_PROGRESS_INTERVAL_MS', 'askProgressIntervalMs'],
      ['ASK_TIMEOUT_MS', 'askTimeoutMs'],
      ['RESUME_TIMEOUT_MS', 'resumeTimeoutMs'],
      ['DELIVERY_CONFIRM_TIMEOUT_MS', 'deliveryConfirmTimeoutMs'],
    ] as const)('%s is read as an integer into %s', (variable, key) => {
      expect(loadConfig({ [variable]: '1500' })[key]).toBe(1500);
    });

    it.each([
      ['GRAPHQL_MAX_COST', (c: AppConfig) => c.graphql.maxCost],
      ['GRAPHQL_MAX_ROOT_LISTS', (c: AppConfig) => c.graphql.maxRootLists],
      ['GRAPHQL_MAX_TOKENS', (c: AppConfig) => c.graphql.maxTokens],
      ['MCP_MAX_BATCH', (c: AppConfig) => c.mcp.maxBatch],
      ['MCP_MAX_PAGE_BUDGET', (c: AppConfig) => c.mcp.maxPageBudget],
      ['RATE_LIMIT_WINDOW_SECONDS', (c: AppConfig) => c.rateLimits.windowSeconds],
      ['RATE_LIMIT_SIGN_IN', (c: AppConfig) => c.rateLimits.signIn],
      ['RATE_LIMIT_FAILED_CREDENTIALS', (c: AppConfig) => c.rateLimits.failedCredentials],
      ['RATE_LIMIT_ANSWERS', (c: AppConfig) => c.rateLimits.answers],
      ['RATE_LIMIT_LISTS', (c: AppConfig) => c.rateLimits.lists],
      ['RATE_LIMIT_ASKS', (c: AppConfig) => c.rateLimits.asks],
      ['RATE_LIMIT_VERIFICATIONS', (c: AppConfig) => c.rateLimits.verifications],
      ['RECEIPT_TTL_SECONDS', (c: AppConfig) => c.receiptTtlSeconds],
    ] as const)('%s is read as an integer', (variable, read) => {
      expect(read(loadConfig({ [variable]: '150' }))).toBe(150);
    });

    it.each([
      ['BROWSER_SESSION_IDLE_TIMEOUT_MS', 'browserSessionIdleTimeoutMs', {}],
      ['BROWSER_SESSION_MAX_AGE_MS', 'browserSessionMaxAgeMs', { BROWSER_SESSION_IDLE_TIMEOUT_MS: '1000' }],
      ['REQUEST_TIMEOUT_MS', 'requestTimeoutMs', { HEADERS_TIMEOUT_MS: '1000' }],
      ['HEADERS_TIMEOUT_MS', 'headersTimeoutMs', {}],
      ['KEEP_ALIVE_TIMEOUT_MS', 'keepAliveTimeoutMs', {}],
    ] as const)('%s is read as an integer into %s', (variable, key, companions) => {
      expect(loadConfig({ ...companions, [variable]: '1500' })[key]).toBe(1500);
    });

    it.each(['http://localhost:3000', 'https://parley.example.com'])('PUBLIC_URL=%s is kept', (value) => {
      expect(loadConfig({ PUBLIC_URL: value }).publicUrl).toBe(value);
    });

    it.each([
      ['true', true],
      ['TRUE', true],
      ['false', false],
    ])('ALLOW_UNAUTHENTICATED_NETWORK=%s ⇒ %s', (value, expected) => {
      expect(loadConfig({ ALLOW_UNAUTHENTICATED_NETWORK: value }).allowUnauthenticatedNetwork).toBe(expected);
    });

    it.each(['https://hooks.example.com/parley', 'http://hooks.example.com:9000/resume'])('RESUME_WEBHOOK_URL=%s is kept', (value) => {
      expect(loadConfig({ RESUME_WEBHOOK_URL: value }).resumeWebhookUrl).toBe(value);
    });

    it.each(['http://localhost:9000/resume', 'http://127.0.0.1:9000/resume', 'http://[::1]/resume'])(
      'RESUME_WEBHOOK_URL=%s is kept when OUTBOUND_ALLOW_PRIVATE_TARGETS=true (refused by default)',
      (value) => {
        expect(loadConfig({ RESUME_WEBHOOK_URL: value, OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' })).toMatchObject({
          resumeWebhookUrl: value,
          outbound: { allowPrivateTargets: true },
        });
        expect(() => loadConfig({ RESUME_WEBHOOK_URL: value })).toThrow(ConfigError);
      },
    );

    it.each([
      'http://localhost:9000/resume',
      'http://app.localhost./resume',
      'http://127.0.0.1:9000/resume',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/resume',
      'http://[64:ff9b::7f00:1]/resume',
      'http://[2002:7f00:1::]/resume',
    ])('RESUME_WEBHOOK_URL=%s stops start-up naming it, and the setting that would allow it', (value) => {
      expect(() => loadConfig({ RESUME_WEBHOOK_URL: value })).toThrow(
        'Invalid configuration: RESUME_WEBHOOK_URL points at a loopback, private or link-local address (allowed only with OUTBOUND_ALLOW_PRIVATE_TARGETS=true)',
      );
    });

    it('RESUME_WEBHOOK_URL with credentials stops start-up', () => {
      expect(() => loadConfig({ RESUME_WEBHOOK_URL: 'https://user:secret@hooks.example.com/' })).toThrow(
        'Invalid configuration: RESUME_WEBHOOK_URL must not carry credentials',
      );
    });

    it.each([
      ['false', false],
      ['TRUE', true],
      ['1', 1],
      ['2', 2],
      ['172.30.80.10', ['172.30.80.10']],
      [' 10.0.0.0/8 , fd00::/8,::1 ', ['10.0.0.0/8', 'fd00::/8', '::1']],
      ['Loopback,uniquelocal', ['loopback', 'uniquelocal']],
    ])('TRUST_PROXY=%j ⇒ %j', (value, expected) => {
      expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
    });

    it('reads every variable at once', () => {
      expect(
        loadConfig({
          PORT: '9000',
          HOST: '0.0.0.0',
          DATABASE_URL: 'postgres://db/parley',
          DATA_DIR: '/tmp/parley-data',
          AUTH_MODE: 'enabled',
          ADMIN_TOKEN: 'x'.repeat(30),
          LOG_LEVEL: 'warn',
          BODY_LIMIT_BYTES: '4096',
        }),
      ).toMatchObject({
        port: 9000,
        host: '0.0.0.0',
        databaseUrl: 'postgres://db/parley',
        dataDir: '/tmp/parley-data',
        authMode: 'enabled',
        adminToken: 'x'.repeat(30),
        logLevel: 'warn',
        bodyLimitBytes: 4096,
      });
    });
  });

  describe('bad values throw a ConfigError naming the variable', () => {
    it.each([
      ['PORT', 'abc', 'must be an integer between 0 and 65535 (got "abc")'],
      ['PORT', '-1', 'must be an integer between 0 and 65535 (got "-1")'],
      ['PORT', '65536', 'must be an integer between 0 and 65535 (got "65536")'],
      ['PORT', '80.5', 'must be an integer between 0 and 65535 (got "80.5")'],
      ['PORT', '1e3', 'must be an integer between 0 and 65535 (got "1e3")'],
      ['PORT', '0x50', 'must be an integer between 0 and 65535 (got "0x50")'],
      ['PORT', '80 80', 'must be an integer between 0 and 65535 (got "80 80")'],
      ['DATABASE_URL', 'mysql://x', 'must be a postgres:// or postgresql:// URL'],
      ['DATABASE_URL', 'not a url', 'must be a postgres:// or postgresql:// URL'],
      ['DATABASE_URL', 'http://db.example.com/parley', 'must be a postgres:// or postgresql:// URL'],
      ['DATABASE_LISTEN_URL', 'db:5432', 'must be a postgres:// or postgresql:// URL'],
      ['DATABASE_PREPARED_STATEMENTS', 'no', 'must be true or false (got "no")'],
      ['AUTH_MODE', 'maybe', 'must be one of disabled, enabled (got "maybe")'],
      ['AUTH_MODE', 'true', 'must be one of disabled, enabled (got "true")'],
      ['ADMIN_TOKEN', 'a'.repeat(23), 'must be at least 24 characters long'],
      ['GRAPHIQL', 'yes', 'must be true or false (got "yes")'],
      ['GRAPHQL_MAX_COST', '0', 'must be an integer between 1 and 100000000 (got "0")'],
      ['RATE_LIMIT_ANSWERS', 'lots', 'must be an integer between 1 and 1000000 (got "lots")'],
      ['RATE_LIMIT_STORE', 'redis', 'must be one of postgres, memory (got "redis")'],
      ['MCP_MAX_BATCH', '-3', 'must be an integer between 1 and 10000 (got "-3")'],
      ['LOG_LEVEL', 'verbose', 'must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")'],
      ['BODY_LIMIT_BYTES', '1023', 'must be an integer between 1024 and 67108864 (got "1023")'],
      ['BODY_LIMIT_BYTES', '67108865', 'must be an integer between 1024 and 67108864 (got "67108865")'],
      ['BODY_LIMIT_BYTES', '1mb', 'must be an integer between 1024 and 67108864 (got "1mb")'],
      ['RESUME_WEBHOOK_URL', 'ftp://example.com/x', 'must be an http:// or https:// URL'],
      ['RESUME_WEBHOOK_URL', 'nowhere', 'must be an http:// or https:// URL'],
      ['PUBLIC_URL', 'parley.example.com', 'must be an http:// or https:// URL'],
      ['ALLOW_UNAUTHENTICATED_NETWORK', 'yes', 'must be true or false (got "yes")'],
      ['REQUEST_TIMEOUT_MS', '0', 'must be an integer between 100 and 3600000 (got "0")'],
      ['ALLOWED_HOSTS', 'http://parley.example.com', ALLOWED_HOSTS_DETAIL('http://parley.example.com')],
      ['ALLOWED_HOSTS', 'parley.example.com/x', ALLOWED_HOSTS_DETAIL('parley.example.com/x')],
      ['ALLOWED_HOSTS', 'ok.example, *', ALLOWED_HOSTS_DETAIL('*')],
      ['ALLOWED_HOSTS', 'parley.example.com:99999', ALLOWED_HOSTS_DETAIL('parley.example.com:99999')],
      ['TRUST_PROXY', 'nginx', TRUST_PROXY_DETAIL('nginx')],
      ['TRUST_PROXY', '0', TRUST_PROXY_DETAIL('0')],
      ['TRUST_PROXY', '101', TRUST_PROXY_DETAIL('101')],
      ['TRUST_PROXY', '10.0.0.1, 10.0.0.256', TRUST_PROXY_DETAIL('10.0.0.256')],
      ['TRUST_PROXY', '10.0.0.0/33', TRUST_PROXY_DETAIL('10.0.0.0/33')],
      ['TRUST_PROXY', 'fd00::/129', TRUST_PROXY_DETAIL('fd00::/129')],
      ['TRUST_PROXY', '10.0.0.0/8/8', TRUST_PROXY_DETAIL('10.0.0.0/8/8')],
      ['TRUST_PROXY', ',', TRUST_PROXY_DETAIL(',')],
    ])('%s=%j', (variable, value, detail) => {
      const error = configError({ [variable]: value });
      expect(error).toBeInstanceOf(Error);
      expect(error.variable).toBe(variable);
      expect(error.message).toBe(`Invalid configuration: ${variable} ${detail}`);
    });

    it.each(['WAIT_TIMEOUT_MS', 'ASK_PROGRESS_INTERVAL_MS', 'ASK_TIMEOUT_MS', 'RESUME_TIMEOUT_MS', 'DELIVERY_CONFIRM_TIMEOUT_MS'])(
      '%s must be a positive integer',
      (variable) => {
        for (const value of ['abc', '-5', '0', '1.5']) {
          const error = configError({ [variable]: value });
          expect(error.variable).toBe(variable);
          expect(error.message).toMatch(new RegExp(`^Invalid configuration: ${variable} must be an integer between \\d+ and \\d+ \\(got "${value.replace('.', '\\.')}"\\)$`));
        }
      },
    );

    it('never echoes a secret value', () => {
      expect(configError({ DATABASE_URL: 'mysql://root:hunter2-secret@db/x' }).message).not.toContain('hunter2-secret');
      expect(configError({ ADMIN_TOKEN: 'short-secret-token' }).message).not.toContain('short-secret-token');
    });

    it('HEADERS_TIMEOUT_MS may not exceed REQUEST_TIMEOUT_MS (Node refuses it)', () => {
      const error = configError({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' });
      expect(error.variable).toBe('HEADERS_TIMEOUT_MS');
      expect(error.message).toBe('Invalid configuration: HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS (1000)');
      expect(configError({ HEADERS_TIMEOUT_MS: '40000' }).variable).toBe('HEADERS_TIMEOUT_MS');
    });

    it('DB_POOL_ACQUIRE_TIMEOUT_MS is at least DB_CONNECT_TIMEOUT_MS (opening a connection keeps its own bound)', () => {
      const error = configError({ DB_CONNECT_TIMEOUT_MS: '5000', DB_POOL_ACQUIRE_TIMEOUT_MS: '2000' });
      expect(error.variable).toBe('DB_POOL_ACQUIRE_TIMEOUT_MS');
      expect(error.message).toBe('Invalid configuration: DB_POOL_ACQUIRE_TIMEOUT_MS must be at least DB_CONNECT_TIMEOUT_MS (5000)');
      expect(configError({ DB_POOL_ACQUIRE_TIMEOUT_MS: '10ms' }).variable).toBe('DB_POOL_ACQUIRE_TIMEOUT_MS');
      expect(loadConfig({})).toMatchObject({ dbConnectTimeoutMs: 3_000, dbPoolAcquireTimeoutMs: 10_000 });
      expect(loadConfig({ DB_CONNECT_TIMEOUT_MS: '20000' }).dbPoolAcquireTimeoutMs).toBe(20_000);
      expect(loadConfig({ DB_CONNECT_TIMEOUT_MS: '1000', DB_POOL_ACQUIRE_TIMEOUT_MS: '1000' }).dbPoolAcquireTimeoutMs).toBe(1_000);
    });

    it('BROWSER_SESSION_IDLE_TIMEOUT_MS may not exceed BROWSER_SESSION_MAX_AGE_MS', () => {
      const error = configError({ BROWSER_SESSION_IDLE_TIMEOUT_MS: '7200000', BROWSER_SESSION_MAX_AGE_MS: '3600000' });
      expect(error.variable).toBe('BROWSER_SESSION_IDLE_TIMEOUT_MS');
      expect(error.message).toBe('Invalid configuration: BROWSER_SESSION_IDLE_TIMEOUT_MS must not exceed BROWSER_SESSION_MAX_AGE_MS (3600000)');
    });

    it('names the first bad variable even when others are valid', () => {
      expect(configError({ PORT: '8080', AUTH_MODE: 'enabled', LOG_LEVEL: 'nope' }).variable).toBe('LOG_LEVEL');
    });
  });

  describe('AUTH_MODE=disabled on the network', () => {
    it.each(['0.0.0.0', '::', '192.168.1.10', 'parley.example.com'])('refuses HOST=%s with AUTH_MODE=disabled, naming the variables', (host) => {
      const environments: Record<string, string>[] = [{ HOST: host }, { HOST: host, AUTH_MODE: 'disabled' }, { HOST: host, ALLOW_UNAUTHENTICATED_NETWORK: 'false' }];
      for (const env of environments) {
        const error = configError(env);
        expect(error.variable).toBe('AUTH_MODE');
        expect(error.message).toContain(`AUTH_MODE is disabled while HOST=${host} is not a loopback address`);
        expect(error.message).toContain('ALLOW_UNAUTHENTICATED_NETWORK=true');
      }
    });

    it('accepts it when ALLOW_UNAUTHENTICATED_NETWORK=true, with a warning to log at every start', () => {
      const config = loadConfig({ HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED_NETWORK: 'true' });
      expect(config.host).toBe('0.0.0.0');
      expect(unauthenticatedNetworkWarning(config)).toMatch(/^AUTH_MODE=disabled on HOST=0\.0\.0\.0 \(ALLOW_UNAUTHENTICATED_NETWORK=true\)/);
    });

    it('needs nothing and warns about nothing on a loopback HOST or with AUTH_MODE=enabled', () => {
      for (const env of [{}, { HOST: '127.0.0.1' }, { HOST: 'localhost' }, { HOST: '::1' }, { HOST: '0.0.0.0', AUTH_MODE: 'enabled' }]) {
        expect(unauthenticatedNetworkWarning(loadConfig(env))).toBeUndefined();
      }
    });

    it.each([
      ['127.0.0.1', true],
      ['127.1.2.3', true],
      ['localhost', true],
      ['LOCALHOST', true],
      ['::1', true],
      ['[::1]', true],
      ['::ffff:127.0.0.1', true],
      ['0.0.0.0', false],
      ['::', false],
      ['10.0.0.1', false],
      ['128.0.0.1', false],
      ['localhost.example.com', false],
    ])('isLoopbackHost(%j) ⇒ %s', (host, expected) => {
      expect(isLoopbackHost(host)).toBe(expected);
    });
  });
});
