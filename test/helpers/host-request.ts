import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface HostResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or null when it is not JSON. */
  body: any;
}

/**
 * One request to an instance under a `Host` header of the caller's choosing (fetch cannot set
 * Host): a mapped domain (D28) or a foreign name, over the instance's real socket.
 */
export function hostRequest(
  baseUrl: string,
  opts: { host: string; method?: string; path: string; headers?: Record<string, string>; body?: unknown },
): Promise<HostResponse> {
  const url = new URL(baseUrl);
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: { host: opts.host, ...(payload ? { 'content-type': 'application/json' } : {}), ...opts.headers },
        setHost: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = null;
          try {
            body = text ? JSON.parse(text) : null;
          } catch {
            body = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
