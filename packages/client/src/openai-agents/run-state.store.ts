import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ApprovalRequest } from '../shared/approval.questions.js';

/**
 * A paused run, kept with the bundle it waits on: the serialized RunState (`state.toString()`), and
 * the requests as asked (question order = bundle order). Keyed by the pending id, so a restarted
 * process finds the run and the bundle together and waits on the same bundle — it never asks again.
 */
export interface StoredRun {
  pendingId: string;
  sessionId: string;
  /** `RunState.toString()` at the interruption. */
  state: string;
  requests: ApprovalRequest[];
  askedAt: string;
}

/** Where paused runs live between the interruption and the continued run's end. */
export interface RunStateStore {
  save(run: StoredRun): Promise<void>;
  load(pendingId: string): Promise<StoredRun | undefined>;
  /** Every run still paused (after a restart: the ones to resume). */
  list(): Promise<StoredRun[]>;
  remove(pendingId: string): Promise<void>;
}

/** Paused runs in memory: for agents that are never restarted (and tests). */
export class MemoryRunStateStore implements RunStateStore {
  private readonly runs = new Map<string, StoredRun>();
  save(run: StoredRun): Promise<void> {
    this.runs.set(run.pendingId, run);
    return Promise.resolve();
  }
  load(pendingId: string): Promise<StoredRun | undefined> {
    return Promise.resolve(this.runs.get(pendingId));
  }
  list(): Promise<StoredRun[]> {
    return Promise.resolve([...this.runs.values()]);
  }
  remove(pendingId: string): Promise<void> {
    this.runs.delete(pendingId);
    return Promise.resolve();
  }
}

/**
 * Paused runs as files in a directory, one per pending id, written to a temporary name and renamed
 * (atomic on one file system): a process killed mid-write leaves the previous file or none, never half of one.
 */
export class FileRunStateStore implements RunStateStore {
  constructor(readonly directory: string) {}

  private file(pendingId: string): string {
    return path.join(this.directory, `${encodeURIComponent(pendingId)}.run.json`);
  }

  async save(run: StoredRun): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const temporary = `${this.file(run.pendingId)}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(run));
    await rename(temporary, this.file(run.pendingId));
  }

  async load(pendingId: string): Promise<StoredRun | undefined> {
    try {
      return JSON.parse(await readFile(this.file(pendingId), 'utf8')) as StoredRun;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async list(): Promise<StoredRun[]> {
    const names = await readdir(this.directory).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : Promise.reject(error)));
    const runs = await Promise.all(names.filter((name) => name.endsWith('.run.json')).map((name) => this.load(decodeURIComponent(name.slice(0, -'.run.json'.length)))));
    return runs.filter((run): run is StoredRun => run !== undefined).sort((a, b) => a.askedAt.localeCompare(b.askedAt));
  }

  async remove(pendingId: string): Promise<void> {
    await rm(this.file(pendingId), { force: true });
  }
}
