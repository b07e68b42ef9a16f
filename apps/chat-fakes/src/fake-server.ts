import type http from 'node:http';

/** How a fake is started: its port on 127.0.0.1 (any free one when unset), and who hears each call it answered. */
export interface FakeOptions<Call> {
  port?: number;
  onCall?: (call: Call) => void;
}

export async function listen(server: http.Server, port = 0): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}
