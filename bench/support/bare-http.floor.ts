/**
 * The floor of any HTTP long poll in Node: a `node:http` server (the application's timeouts) whose
 * handler parks every `GET` but `/healthz` and never answers it until told. Spawned by the waiters
 * benchmark like the application (`node --expose-gc --import heap-probe.js`), driven by the same client.
 */
import http from 'node:http';
import { loadConfig } from '#config';
import { listenAddress, ParkedResponses } from './parked-responses.js';

const config = loadConfig({});
const parked = new ParkedResponses();
const server = http.createServer(
  { requestTimeout: config.requestTimeoutMs, headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs) },
  (request, response) => {
    if (request.method === 'GET' && request.url !== '/healthz') {
      parked.park(response);
      return;
    }
    response.writeHead(request.url === '/healthz' ? 200 : 404, { 'content-type': 'application/json; charset=utf-8' }).end('{}');
  },
);
server.keepAliveTimeout = config.keepAliveTimeoutMs;
parked.serveParent();
const { host, port } = listenAddress();
server.listen(port, host);
