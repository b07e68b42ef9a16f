import { randomBytes } from 'node:crypto';
import pg from 'pg';

function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set (test/support/global-setup.ts sets it)');
  return url;
}

/** Creates an empty database on the test server and returns its URL. */
export async function createTestDatabase(): Promise<string> {
  const name = `parley_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** A plain pg pool on a test database, for arranging rows and asserting what was written. */
export function openPool(url: string, max = 20): pg.Pool {
  return new pg.Pool({ connectionString: url, max });
}
