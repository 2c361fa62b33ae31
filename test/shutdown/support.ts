import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./drain-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  output(): string;
  /** Resolves when the server's slow handler tagged `tag` has begun. */
  started(tag: string): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** test/shutdown/drain-child.ts as its own process; resolves once it listens. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let pending = '';
  const tags = new Set<string>();
  const waiters = new Map<string, () => void>();
  let onUrl: (url: string) => void = () => undefined;
  const url = new Promise<string>((r) => (onUrl = r));
  child.stdout!.on('data', (d: Buffer) => {
    output += d;
    pending += d;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      let msg: { url?: string; started?: string };
      try {
        msg = JSON.parse(line) as typeof msg;
      } catch {
        continue;
      }
      if (msg.url) onUrl(msg.url);
      if (msg.started) {
        tags.add(msg.started);
        waiters.get(msg.started)?.();
      }
    }
  });
  child.stderr!.on('data', (d: Buffer) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  const address = await Promise.race([url, exited.then(() => null), sleep(60_000).then(() => null)]);
  if (!address) {
    child.kill('SIGKILL');
    throw new Error(`the server did not start:\n${output}`);
  }
  return {
    child,
    url: address,
    port: Number(new URL(address).port),
    output: () => output,
    started: (tag) => (tags.has(tag) ? Promise.resolve() : new Promise((r) => waiters.set(tag, r))),
    exited,
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** Whether a new TCP connection to the port is refused (nothing listens any more). */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(false)));
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One kept-alive HTTP/1.1 connection, written and read by hand so the test decides what goes on
 * it and when (pipelining included). Responses are read in order; every answer of ours has a
 * Content-Length.
 */
export class RawConnection {
  private buffer = Buffer.alloc(0);
  private readonly queue: RawResponse[] = [];
  private wake: (() => void) | null = null;
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      this.parse();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => resolve(new RawConnection(s)));
      s.once('error', reject);
    });
  }

  send(method: string, path: string, body?: unknown): void {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const head = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: keep-alive'];
    if (body !== undefined) head.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(payload)}`);
    this.socket.write(`${head.join('\r\n')}\r\n\r\n${payload}`);
  }

  /** The next response, or null when the connection closed without one. */
  async next(timeoutMs = 30_000): Promise<RawResponse | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      if (this.closed) return null;
      if (Date.now() > deadline) throw new Error('no response in time');
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 100);
      });
    }
    return this.queue.shift()!;
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(lines[0]!.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (this.buffer.length < end + 4 + length) return;
      const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.queue.push({ status, headers, body });
      this.wake?.();
    }
  }
}
