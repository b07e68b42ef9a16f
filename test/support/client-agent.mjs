#!/usr/bin/env node
/**
 * A durable agent on the plain client (@parley/client from packages/client/dist), for the tests:
 *   client-agent.mjs ask              files a task and session, asks one bundle, prints `waiting <id>`,
 *                                     then resumes with it (exactly once per ledger) and prints {"resumed": outcome}
 *   client-agent.mjs resume <id>      a restarted agent: resume(id) → {"resumed": outcome} or {"already_resumed": id}
 *   client-agent.mjs wait <id>        observes: {"outcome": outcome}
 * PARLEY_URL, LEDGER_DIR (a FileResumeLedger), and the session's id in SESSION_FILE (written by ask).
 */
import { writeFile } from 'node:fs/promises';
import { FileResumeLedger, Parley, ParleyAlreadyResumedError } from '@parley/client';

const parley = new Parley({ url: process.env.PARLEY_URL, ledger: new FileResumeLedger(process.env.LEDGER_DIR), backoff: { initialMs: 100, maxMs: 1000 } });
const [mode, pendingId] = process.argv.slice(2);
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

const QUESTIONS = [{ id: 'db', prompt: 'Which database?', options: [{ option_id: 'pg', label: 'PostgreSQL' }, { option_id: 'sqlite', label: 'SQLite' }] }];

try {
  if (mode === 'ask') {
    const { sessionId } = await parley.projection.openSession({ taskTitle: 'client agent' });
    if (process.env.SESSION_FILE) await writeFile(process.env.SESSION_FILE, sessionId);
    const handle = await parley.ask({ sessionId, questions: QUESTIONS, context: 'a test agent' });
    process.stdout.write(`waiting ${handle.pendingId}\n`);
    print({ resumed: await handle.resume() });
  } else if (mode === 'resume') {
    process.stdout.write(`waiting ${pendingId}\n`);
    print({ resumed: await parley.resume(pendingId) });
  } else if (mode === 'wait') {
    process.stdout.write(`waiting ${pendingId}\n`);
    print({ outcome: await parley.bundle(pendingId).wait() });
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
} catch (error) {
  if (!(error instanceof ParleyAlreadyResumedError)) throw error;
  print({ already_resumed: error.pendingId });
}
