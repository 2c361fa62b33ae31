import { expect } from 'vitest';
import { isRawResponse } from '../../kernel/contract/route.js';
import { errorEnvelopeSchema } from '../../kernel/contract/shapes.js';
import { API_PREFIX } from '../../kernel/http/routes.js';
import type { HttpResponse } from './client.js';
import type { TestInstance } from './instance.js';

function findRoute(instance: TestInstance, method: string, path: string) {
  const bare = path.split('?')[0]!.replace(/\/$/, '');
  // As the router does, a static segment wins over a parameter (`/pages/nav` before `/pages/:pageId`).
  let found: ReturnType<TestInstance['app']['kernel']['routes']>[number]['definition'] | null = null;
  const params = (url: string) => (url.match(/:/g) ?? []).length;
  for (const r of instance.app.kernel.routes()) {
    if (r.definition.method !== method) continue;
    const pattern = new RegExp('^' + (API_PREFIX + r.definition.url).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+') + '$');
    if (pattern.test(bare) && (!found || params(r.definition.url) < params(found.url))) found = r.definition;
  }
  return found;
}

/**
 * Fails unless the response matches the schema its route declares for that status (strict
 * schemas refuse extra properties); error statuses must carry the error envelope.
 */
export function expectContract(instance: TestInstance, method: string, path: string, res: HttpResponse): void {
  const def = findRoute(instance, method, path);
  expect(def, `no route ${method} ${path}`).not.toBeNull();
  const schema = def!.schema.response[res.status];
  if (schema === undefined) {
    expect(res.status, `${method} ${path} answered undeclared status ${res.status}: ${res.text}`).toBeGreaterThanOrEqual(400);
    const out = errorEnvelopeSchema.safeParse(res.body);
    expect(out.success, `${method} ${path} ${res.status} is not the error envelope: ${res.text}`).toBe(true);
    return;
  }
  if (isRawResponse(schema)) {
    expect(res.headers.get('content-type') ?? '').toContain(schema.contentType);
    return;
  }
  const out = schema.safeParse(res.body);
  expect(out.success, `${method} ${path} ${res.status} breaks its schema: ${out.success ? '' : JSON.stringify(out.error.issues)} body=${res.text}`).toBe(true);
}

/** Requests and checks the contract in one step. */
export async function call<T = any>(
  instance: TestInstance,
  client: ReturnType<TestInstance['client']>,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<HttpResponse<T>> {
  const res = await client.request<T>(method, path, { body, headers });
  expectContract(instance, method, path, res);
  return res;
}
