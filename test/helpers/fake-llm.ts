/**
 * An OpenAI-compatible model server on loopback for the LLM tests: `POST /v1/chat/completions`
 * and `GET /v1/models`, answering as `behaviour` says. Every request body is kept, so a test can
 * search every prompt that left the instance.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeBehaviour = 'answer' | 'fenced' | 'prose' | '401' | '500' | 'slow' | 'garbage';

export interface FakeLlm {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  behaviour: FakeBehaviour;
  /** The JSON the model answers with (`answer` bare, `fenced` inside a ```json block). */
  answer: unknown;
  /** How long `slow` waits before answering. */
  slowMs: number;
  /** Every request: method, path, headers and the parsed body. */
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: unknown }>;
  close(): Promise<void>;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const fake: FakeLlm = {
    baseUrl: '',
    behaviour: 'answer',
    answer: { changes: [] },
    slowMs: 10_000,
    requests: [],
    close: async () => undefined,
  };
  const open = new Set<import('node:net').Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
      fake.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (fake.behaviour === '401')
        return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      if (fake.behaviour === '500') return send(500, { error: { message: 'The server had an error', type: 'server_error' } });
      if (fake.behaviour === 'garbage') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>not an API</html>');
      }
      if (req.method === 'GET' && req.url === '/v1/models') {
        return send(200, {
          object: 'list',
          data: [
            { id: 'fake-small', object: 'model' },
            { id: 'fake-large', object: 'model' },
          ],
        });
      }
      if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        const model = (body as { model?: string } | null)?.model;
        if (model === 'missing-model') return send(404, { error: { message: 'The model does not exist', code: 'model_not_found' } });
        const content =
          fake.behaviour === 'prose'
            ? 'I would add a product called Widget, but I cannot write JSON today.'
            : fake.behaviour === 'fenced'
              ? 'Here is the change set:\n\n```json\n' + JSON.stringify(fake.answer, null, 2) + '\n```\n'
              : JSON.stringify(fake.answer);
        const answer = {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        };
        if (fake.behaviour === 'slow') {
          const timer = setTimeout(() => send(200, answer), fake.slowMs);
          res.on('close', () => clearTimeout(timer));
          return;
        }
        return send(200, answer);
      }
      send(404, { error: { message: 'not found' } });
    });
  });
  server.on('connection', (s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const s of open) s.destroy();
      server.close(() => resolve());
    });
  return fake;
}
