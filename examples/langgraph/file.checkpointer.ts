import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunnableConfig } from '@langchain/core/runnables';
import { type Checkpoint, type CheckpointMetadata, MemorySaver, type PendingWrite } from '@langchain/langgraph-checkpoint';

type Bytes = { $bytes: string };

function toJson(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? ({ $bytes: Buffer.from(value).toString('base64') } satisfies Bytes) : value;
}

function fromJson(_key: string, value: unknown): unknown {
  const bytes = value as Partial<Bytes> | null;
  return bytes && typeof bytes === 'object' && typeof bytes.$bytes === 'string' && Object.keys(bytes).length === 1 ? new Uint8Array(Buffer.from(bytes.$bytes, 'base64')) : value;
}

/**
 * LangGraph's MemorySaver, written through to one JSON file after every change (to a temporary
 * name, then renamed: a kill -9 leaves the previous file whole) and read back at start-up — a
 * checkpointer that survives a restart without a database, for the example. A real deployment uses
 * one of LangGraph's database checkpointers (PostgresSaver, SqliteSaver); nothing else changes.
 */
export class FileCheckpointer extends MemorySaver {
  constructor(private readonly file: string) {
    super();
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8'), fromJson) as { storage: MemorySaver['storage']; writes: MemorySaver['writes'] };
      this.storage = saved.storage;
      this.writes = saved.writes;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  private persist(): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ storage: this.storage, writes: this.writes }, toJson));
    renameSync(temporary, this.file);
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    const saved = await super.put(config, checkpoint, metadata);
    this.persist();
    return saved;
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    await super.putWrites(config, writes, taskId, taskPath);
    this.persist();
  }

  override async deleteThread(threadId: string): Promise<void> {
    await super.deleteThread(threadId);
    this.persist();
  }
}
