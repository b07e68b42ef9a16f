import { isDatabaseUnavailable } from './database-unavailable.js';

describe('isDatabaseUnavailable (a lost database is a 503, never a 500: docs/guarantees.md, "Database outages")', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['an administrator shutdown (57P01)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a connection terminated mid-statement', new Error('Connection terminated unexpectedly')],
    ['a query on a client whose connection failed', new Error('Client has encountered a connection error and is not queryable')],
    ['a query on a client the loss already closed', new Error('Client was closed and is not queryable')],
    ['a pool wait past DB_POOL_ACQUIRE_TIMEOUT_MS', new Error('timeout exceeded when trying to connect')],
    ['a connection not opened within DB_CONNECT_TIMEOUT_MS', new Error('timeout expired')],
    ['a write on a standby a failover routed the connection to (25006)', Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' })],
    ['a driver error wrapped by TypeORM', { message: 'query failed', driverError: Object.assign(new Error('x'), { code: '57P03' }) }],
  ])('%s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a constraint violation', Object.assign(new Error('duplicate key value'), { code: '23505' })],
    ['a bug', new TypeError('cannot read properties of undefined')],
    ['not an error', 'connection terminated'],
  ])('%s is not', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
