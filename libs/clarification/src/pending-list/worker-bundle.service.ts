import { Injectable } from '@nestjs/common';
import type { WorkspaceVisibility } from '#authorization';
import type { BundleRow } from '../bundle/clarification.types.js';
import { type WorkerBundleHead, WorkerBundleRepository } from './worker-bundle.repository.js';

/** The workers' (sessions') current decisions, for the decisions surface: read from clarification's own tables. */
@Injectable()
export class WorkerBundleService {
  constructor(private readonly workers: WorkerBundleRepository) {}

  /** Every row of the worker's current decision, in question order, and whether the bundle is active (no rows: none). */
  currentBundle(workerId: string): Promise<{ rows: BundleRow[]; active: boolean }> {
    return this.workers.currentBundle(workerId);
  }

  /** One head per visible worker that has a current decision, oldest bundle first. */
  listWorkerBundles(visibility: WorkspaceVisibility): Promise<WorkerBundleHead[]> {
    return this.workers.listWorkerBundles(visibility);
  }

  /** The rows of these bundles, each in question order. */
  bundleRows(pendingIds: string[]): Promise<BundleRow[]> {
    return this.workers.bundleRows(pendingIds);
  }
}
