import { Worker } from 'node:worker_threads';
import type { LoadRequest, LoadResponse, WorkerSetup } from './load.worker.js';

/** The load worker seen from the main thread: one request at a time. */
export class Load {
  private constructor(private readonly worker: Worker) {}

  static async start(setup: WorkerSetup): Promise<Load> {
    const worker = new Worker(new URL('./load.worker.js', import.meta.url), { workerData: setup });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    return new Load(worker);
  }

  run(request: LoadRequest): Promise<LoadResponse> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      this.worker.once('error', onError);
      this.worker.once('message', (response: LoadResponse) => {
        this.worker.off('error', onError);
        resolve(response);
      });
      this.worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    await this.run({ op: 'close' });
    await this.worker.terminate();
  }
}
