import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow } from '#persistence';
import { nonTerminalSession } from '#tasks';

export interface WorkerRow {
  id: string;
  task_id: string;
  /** False once the session reached a terminal state (a closed worker). */
  open: boolean;
}

@Injectable()
export class DecisionRepository {
  constructor(private readonly dataSource: DataSource) {}

  findWorker(workerId: string): Promise<WorkerRow | undefined> {
    return queryRow<WorkerRow>(
      this.dataSource,
      `SELECT ws.id, ws.task_id, ${nonTerminalSession('ws')} AS open FROM task_sessions ws WHERE ws.id = $1`,
      [workerId],
    );
  }
}
