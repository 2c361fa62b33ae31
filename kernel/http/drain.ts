import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, envelope } from '../errors.js';

/** Node keeps the response a connection is answering here (already relied on in slow-clients.ts). */
type ServedSocket = Socket & { _httpMessage?: ServerResponse | null };

/** Seconds a refused client is told to wait: another replica answers at once, this one never will. */
const RETRY_AFTER_S = '1';

/**
 * The HTTP side of a graceful stop (decisions K43). Until `begin`, it only counts connections
 * (one Set entry per connection, nothing per request). `begin`:
 * - stops accepting connections (a client then meets a refused connect, which any client or
 *   load balancer may retry elsewhere: nothing was sent);
 * - closes idle keep-alive connections, and answers what is in flight with `Connection: close`
 *   so no client sends this process another request on them;
 * - answers any request that still arrives on an open connection (pipelined, or crossing the
 *   close) 503 `SHUTTING_DOWN` in the envelope, with `Retry-After` and `Connection: close`;
 *   `passThrough` requests (readiness) are served as usual, also with `Connection: close`;
 * - ends server-sent-event streams (clients reconnect to another replica).
 * It resolves once every connection is gone, or when `graceMs` has passed: then it cuts what is left.
 */
export class HttpDrain {
  private readonly sockets = new Set<Socket>();
  private started: Promise<void> | null = null;

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  get active(): boolean {
    return this.started !== null;
  }

  begin(opts: { graceMs: number; passThrough: (req: IncomingMessage) => boolean; onCut?: (open: number) => void }): Promise<void> {
    return (this.started ??= this.run(opts));
  }

  private async run({
    graceMs,
    passThrough,
    onCut,
  }: {
    graceMs: number;
    passThrough: (req: IncomingMessage) => boolean;
    onCut?: (open: number) => void;
  }): Promise<void> {
    const { server } = this;
    const serve = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      // A request pipelined behind one still being answered: that answer keeps its connection
      // open, so this one can be answered too (else Node would close after the first).
      const ahead = (req.socket as ServedSocket)._httpMessage;
      if (ahead && ahead !== res && !ahead.headersSent) ahead.shouldKeepAlive = true;
      res.shouldKeepAlive = false;
      if (passThrough(req)) for (const listener of serve) listener.call(server, req, res);
      else refuse(res);
    });
    server.removeAllListeners('upgrade');
    server.on('upgrade', (_req: IncomingMessage, socket: Socket) => refuseRaw(socket));

    for (const socket of this.sockets) {
      const res = (socket as ServedSocket)._httpMessage;
      if (!res) continue;
      if (!res.headersSent) res.shouldKeepAlive = false;
      else if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) res.end();
      // Its headers promised keep-alive: once answered, the connection would idle until the grace
      // ends (server.close closes only the connections idle when it is called). End it then, unless
      // a pipelined request has already taken it (that one is answered with Connection: close).
      else res.once('finish', () => setImmediate(() => (socket as ServedSocket)._httpMessage || socket.end()));
    }
    // Stops listening and closes idle connections (Node 19+); resolves when the last connection ends.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'cut'>((resolve) => (timer = setTimeout(() => resolve('cut'), graceMs)));
    const outcome = await Promise.race([closed, grace]);
    clearTimeout(timer);
    if (outcome === 'cut') {
      onCut?.(this.sockets.size);
      server.closeAllConnections();
      // Upgraded sockets (WebSockets) are no longer the HTTP server's to close.
      for (const socket of this.sockets) socket.destroy();
      await closed;
    }
  }
}

function refusal(id: string): string {
  return JSON.stringify(envelope(new AppError('SHUTTING_DOWN'), id));
}

function refuse(res: ServerResponse): void {
  const id = randomUUID();
  const body = refusal(id);
  res.writeHead(503, {
    'x-request-id': id,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'retry-after': RETRY_AFTER_S,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

function refuseRaw(socket: Socket): void {
  const body = refusal(randomUUID());
  if (socket.writable)
    socket.write(
      `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: ${RETRY_AFTER_S}\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy();
}
