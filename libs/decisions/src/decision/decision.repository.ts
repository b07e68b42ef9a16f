import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import { nonTerminalSession } from '#tasks';

export interface WorkerRow {
  id: string;
  task_id: string;
  /** False once the session reached a terminal state (a closed worker). */
  open: boolean;
}

const DECISION_FIND_WORKER = namedStatement(
  'decision_find_worker',
  ['worker_id'],
  `SELECT ws.id, ws.task_id, ${nonTerminalSession('ws')} AS open FROM task_sessions ws WHERE ws.id = :worker_id`,
);

/** The statements DecisionRepository runs, for `npm run sql:write`. */
export const decisionStatements: readonly NamedStatement[] = [DECISION_FIND_WORKER];

@Injectable()
export class DecisionRepository {
  constructor(private readonly dataSource: DataSource) {}

  findWorker(workerId: string): Promise<WorkerRow | undefined> {
    return DECISION_FIND_WORKER.row<WorkerRow>(this.dataSource, { worker_id: workerId });
  }
}
