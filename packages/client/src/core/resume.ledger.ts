import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** What the ledger remembers of a hand-over: the hand-off's key (the server's `Idempotency-Key`) and when. */
export interface LedgerEntry {
  pendingId: string;
  /** The resume hand-off's Idempotency-Key (the successor turn id), or the pending id when the answer was not handed off. */
  handoffKey: string;
  at: string;
}

/**
 * The agent's memory of which answers it has already been given, so that `resume()` hands each one
 * over once even when the agent restarts, calls it twice, or the server re-sends a hand-off with the
 * same Idempotency-Key. `claim` must be atomic: of two concurrent claims of one id, one wins.
 */
export interface ResumeLedger {
  /** Records the hand-over of `pendingId`'s answer; false when it was already recorded. */
  claim(entry: LedgerEntry): Promise<boolean>;
  /** Forgets a hand-over (the agent could not take the answer after all: a later resume may have it). */
  release(pendingId: string): Promise<void>;
  get(pendingId: string): Promise<LedgerEntry | undefined>;
}

/** A ledger that lives as long as the process (the default: enough for an agent that is never restarted). */
export class MemoryResumeLedger implements ResumeLedger {
  private readonly entries = new Map<string, LedgerEntry>();

  claim(entry: LedgerEntry): Promise<boolean> {
    if (this.entries.has(entry.pendingId)) return Promise.resolve(false);
    this.entries.set(entry.pendingId, entry);
    return Promise.resolve(true);
  }

  release(pendingId: string): Promise<void> {
    this.entries.delete(pendingId);
    return Promise.resolve();
  }

  get(pendingId: string): Promise<LedgerEntry | undefined> {
    return Promise.resolve(this.entries.get(pendingId));
  }
}

/**
 * A ledger in a directory, one file per pending id, created with `wx` (exclusive create): atomic on a
 * local file system, so two processes sharing the directory cannot both claim one answer.
 */
export class FileResumeLedger implements ResumeLedger {
  constructor(readonly directory: string) {}

  private file(pendingId: string): string {
    return path.join(this.directory, `${encodeURIComponent(pendingId)}.json`);
  }

  async claim(entry: LedgerEntry): Promise<boolean> {
    await mkdir(this.directory, { recursive: true });
    try {
      await writeFile(this.file(entry.pendingId), `${JSON.stringify(entry)}\n`, { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }

  async release(pendingId: string): Promise<void> {
    await rm(this.file(pendingId), { force: true });
  }

  async get(pendingId: string): Promise<LedgerEntry | undefined> {
    try {
      return JSON.parse(await readFile(this.file(pendingId), 'utf8')) as LedgerEntry;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}
