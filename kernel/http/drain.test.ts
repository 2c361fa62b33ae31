import { createServer, request, Agent, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpDrain } from './drain.js';

describe('the drain (decisions K43)', () => {
  it('closes a kept-alive connection once the response that was streaming when it began has ended', { timeout: 90_000 }, async () => {
    let streaming!: ServerResponse;
    let headersOut!: () => void;
    const started = new Promise<void>((resolve) => (headersOut = resolve));
    const server = createServer((_req, res) => {
      // A download: headers and a first part out, the rest later, the connection kept alive.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write('first part ');
      streaming = res;
      headersOut();
    });
    // As fastify's (72 s): an idle kept-alive connection is not closed by the server on its own within the test.
    server.keepAliveTimeout = 600_000;
    const drain = new HttpDrain(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent({ keepAlive: true });
    const body = new Promise<string>((resolve, reject) => {
      const req = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/export', agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    await started;
    let cut: number | null = null;
    // A grace far longer than the test's own deadline: only an early end passes.
    const done = drain.begin({ graceMs: 600_000, passThrough: () => false, onCut: (open) => (cut = open) });
    streaming.end('last part');
    expect(await body).toBe('first part last part');
    await done;
    expect(cut).toBeNull();
    agent.destroy();
  });
});
