import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from '../config.js';
import { AppError, envelope } from '../errors.js';

/**
 * What keeps slow or many clients from holding the server (decisions K22): Node's deadlines for
 * a request's headers and for the whole request (body included), checked often enough to
 * matter, and caps on open connections in all and per peer address.
 */
export function serverOptions(limits: HttpLimits): { headersTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: limits.headersTimeoutMs,
    // Node looks for overdue requests only this often (30 s by default).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

export function capConnections(server: Server, limits: HttpLimits): void {
  server.maxConnections = limits.maxConnections;
  const perAddress = limits.maxConnectionsPerAddress;
  if (perAddress <= 0) return;
  const open = new Map<string, number>();
  // 'connection' runs before any byte is read: a connection over the cap costs a close, nothing else.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > perAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

const CLIENT_ERRORS: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
};

/**
 * Node's answer to a request it gave up on before any handler saw it (too slow, headers too
 * large, unparsable), in the error envelope like every other answer; then the connection ends.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const appErr = new AppError(CLIENT_ERRORS[err.code ?? ''] ?? 'BAD_REQUEST');
  // A response already under way (a handler answering while its body trickles) cannot be replaced.
  const untouched = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent !== true;
  if (socket.writable && untouched) {
    const body = JSON.stringify(envelope(appErr, randomUUID()));
    socket.write(
      `HTTP/1.1 ${appErr.status} ${STATUS_CODES[appErr.status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
