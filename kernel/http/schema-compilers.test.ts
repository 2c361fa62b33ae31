import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { schemaCompilersOnFirstUse } from './schema-compilers.js';

describe("fastify's JSON-schema compilers, loaded on first use", () => {
  it('validate and serialise a route that declares JSON schemas as fastify would', async () => {
    const app = Fastify({ schemaController: { compilersFactory: schemaCompilersOnFirstUse } });
    app.post(
      '/x',
      {
        schema: {
          body: { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } },
          response: { 200: { type: 'object', properties: { a: { type: 'integer' } } } },
        },
      },
      async (req) => ({ ...(req.body as object), extra: 'dropped by the serializer' }),
    );
    const bad = await app.inject({ method: 'POST', url: '/x', payload: { a: 'one' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/body\/a must be integer/);
    const good = await app.inject({ method: 'POST', url: '/x', payload: { a: 1 } });
    expect([good.statusCode, good.json()]).toEqual([200, { a: 1 }]);
    await app.close();
  });
});
