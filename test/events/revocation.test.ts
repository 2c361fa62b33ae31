import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { createApiKey, createUserSession, eventTestPlugin, setupAdmin, ws } from './support.js';

let inst: TestInstance;
beforeAll(async () => {
  // A short heartbeat: every beat re-checks the subscriber, so revocation shows within ~200 ms.
  inst = await startInstance({ plugins: [eventTestPlugin], heartbeatMs: 100 });
  await setupAdmin(inst);
});
afterAll(async () => {
  await inst?.close();
});

/** Resolves when the server ends the SSE stream (or rejects after `ms`). */
function sseEnded(headers: Record<string, string>, ms = 5000): Promise<'ended'> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${inst.url}/api/v1/events`, { headers: { accept: 'text/event-stream', ...headers }, agent: false });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('stream still open'));
    }, ms);
    req.on('response', (res) => {
      expect(res.statusCode).toBe(200);
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        resolve('ended');
      });
    });
    req.on('error', reject);
  });
}

describe('a live channel stops when its credential stops', () => {
  it('ends an SSE stream at the next beat after the session is ended', async () => {
    const user = await createUserSession(inst, 'viewer', 'leaver@example.com');
    const ended = sseEnded({ cookie: user.cookie });
    await new Promise((r) => setTimeout(r, 300));
    await inst.app.kernel.identity.endSessionsOf(user.userId);
    await expect(ended).resolves.toBe('ended');
  });

  it('ends an SSE stream when its user is suspended', async () => {
    const user = await createUserSession(inst, 'viewer', 'suspended@example.com');
    const ended = sseEnded({ cookie: user.cookie });
    await new Promise((r) => setTimeout(r, 300));
    await inst.app.kernel.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', user.userId).execute();
    await expect(ended).resolves.toBe('ended');
  });

  it('closes a WebSocket with 4401 when its API key is revoked', async () => {
    const key = await createApiKey(inst, 'viewer');
    const stream = await ws(inst.url, { headers: key.headers });
    const closed = new Promise<number>((resolve) => stream.socket.once('close', (code) => resolve(code)));
    await inst.app.kernel.db.updateTable('api_keys').set({ revoked_at: Date.now() }).where('id', '=', key.id).execute();
    const code = await Promise.race([closed, new Promise<number>((_r, reject) => setTimeout(() => reject(new Error('socket still open')), 5000))]);
    expect(code).toBe(4401);
  });

  it('keeps a valid channel open across beats', async () => {
    const key = await createApiKey(inst, 'viewer');
    const stream = await ws(inst.url, { headers: key.headers });
    await new Promise((r) => setTimeout(r, 500));
    expect(stream.socket.readyState).toBe(stream.socket.OPEN);
    await stream.close();
  });
});
