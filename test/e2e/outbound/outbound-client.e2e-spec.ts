/**
 * The one outbound client (resume and event webhooks) against real local receivers: a name is
 * resolved once, refused when any of its addresses is private, and connected to at exactly the
 * addresses checked; a redirect is an answer, never followed; a POST that may have arrived is told
 * apart from one that never left.
 */
import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { type HostResolver, OutboundClient, OutboundPolicy } from '#outbound';

interface Receiver {
  port: number;
  /** Each request: its method, path and Host header. */
  requests: { method: string; path: string; host: string }[];
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1 that answers every request as `answer` says ('hang' never answers). */
async function startReceiver(answer: (res: http.ServerResponse) => void | 'hang'): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', host: req.headers.host ?? '' });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A resolver that answers every name with `addresses`, counting its lookups. */
function resolverOf(addresses: LookupAddress[]): HostResolver & { names: string[] } {
  const names: string[] = [];
  return { names, lookup: (hostname: string) => (names.push(hostname), Promise.resolve(addresses)) };
}

const client = (resolver: HostResolver, allowPrivateTargets: boolean) => new OutboundClient(new OutboundPolicy(resolver, { allowPrivateTargets }));
const post = (outbound: OutboundClient, url: string, timeoutMs = 2_000) => outbound.post(url, '{"x":1}', { 'content-type': 'application/json' }, { timeoutMs });
const LOOPBACK: LookupAddress[] = [{ address: '127.0.0.1', family: 4 }];

describe('the outbound client', () => {
  const receivers: Receiver[] = [];
  const receiver = async (answer: (res: http.ServerResponse) => void | 'hang') => {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  };
  const accept = (res: http.ServerResponse) => void res.writeHead(202).end();

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('a public-looking name that resolves to a loopback address is refused at the call, and never contacted', async () => {
    const target = await receiver(accept);
    const resolver = resolverOf(LOOPBACK);
    const reply = await post(client(resolver, false), `http://hooks.example.com:${target.port}/resume`);
    expect(reply).toEqual({
      kind: 'unreached',
      reason: 'hooks.example.com resolves to a loopback, private or link-local address (allowed only with OUTBOUND_ALLOW_PRIVATE_TARGETS=true)',
    });
    expect(resolver.names).toEqual(['hooks.example.com']);
    expect(target.requests).toEqual([]);
  });

  it('a name with one private address among public ones is refused whole', async () => {
    const target = await receiver(accept);
    const resolver = resolverOf([{ address: '8.8.8.8', family: 4 }, ...LOOPBACK]);
    expect((await post(client(resolver, false), `http://hooks.example.com:${target.port}/`)).kind).toBe('unreached');
    expect(target.requests).toEqual([]);
  });

  it.each(['http://127.0.0.1', 'http://localhost', 'http://[::ffff:127.0.0.1]'])('a private literal (%s) is refused without a lookup', async (base) => {
    const target = await receiver(accept);
    const resolver = resolverOf(LOOPBACK);
    expect((await post(client(resolver, false), `${base}:${target.port}/`)).kind).toBe('unreached');
    expect(resolver.names).toEqual([]);
    expect(target.requests).toEqual([]);
  });

  it('the connection goes to the address the policy checked, resolved once (a name no DNS knows reaches the receiver)', async () => {
    const target = await receiver(accept);
    const resolver = resolverOf(LOOPBACK);
    const reply = await post(client(resolver, true), `http://receiver.invalid:${target.port}/resume`);
    expect(reply).toEqual({ kind: 'answered', status: 202 });
    expect(resolver.names).toEqual(['receiver.invalid']);
    expect(target.requests).toEqual([{ method: 'POST', path: '/resume', host: `receiver.invalid:${target.port}` }]);
  });

  it('a redirect is the answer: its target is never contacted', async () => {
    const elsewhere = await receiver(accept);
    const redirecting = await receiver((res) => void res.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/stolen` }).end());
    const reply = await post(client(resolverOf(LOOPBACK), true), `http://127.0.0.1:${redirecting.port}/resume`);
    expect(reply).toEqual({ kind: 'answered', status: 302 });
    expect(redirecting.requests).toHaveLength(1);
    expect(elsewhere.requests).toEqual([]);
  });

  it('no answer within the bound, once connected, is unknown (the POST may have arrived)', async () => {
    const target = await receiver(() => 'hang');
    const reply = await post(client(resolverOf(LOOPBACK), true), `http://127.0.0.1:${target.port}/`, 300);
    expect(reply).toEqual({ kind: 'unknown', reason: 'no response within 300 ms' });
    expect(target.requests).toHaveLength(1);
  });

  it('a refused connection is unreached (the POST never left)', async () => {
    const gone = await startReceiver(accept);
    await gone.close();
    const reply = await post(client(resolverOf(LOOPBACK), true), `http://127.0.0.1:${gone.port}/`);
    expect(reply).toMatchObject({ kind: 'unreached', reason: expect.stringMatching(/ECONNREFUSED/) });
  });
});
