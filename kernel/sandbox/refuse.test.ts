import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { addonFailureDetail, AddonRefusal } from './failure-log.js';
import { SandboxHost, type SandboxAddon } from './host.js';

/** ctx.refuse and a failure's detail, through a real sandbox child with real isolates. */
const sandbox = new SandboxHost();
afterAll(() => sandbox.close());

const addon = (key: string, code: string): SandboxAddon => ({ key, version: '1.0.0', code, limits: { memoryMb: 32, cpuMs: 200 }, capabilities: [] });
const context = { instance: null, settings: {}, connection: null };
const failure = (a: SandboxAddon, kind: 'action' | 'hook', name: string) =>
  sandbox.call({ addon: a, target: { kind, name }, context, input: null }).then(
    () => {
      throw new Error('not refused');
    },
    (err: unknown) => err as AppError,
  );

const REFUSER = addon(
  'refuser',
  `export default {
  actions: {
    full: (ctx) => ctx.refuse(409, 'DESK_FULL', 'The desk is full.', { seats: 0 }),
    caught: (ctx) => { try { ctx.refuse(400, 'NOPE', 'no'); } catch (e) { return { name: e.name, message: e.message, status: e.status, code: e.code }; } },
    lookalike: () => { const e = new Error('fake'); e.name = 'AddonRefusal'; e.status = 400; e.code = 'FAKE'; throw e; },
    badStatus: (ctx) => ctx.refuse(401, 'NO_AUTH', 'x'),
    badCode: (ctx) => ctx.refuse(400, 'lower-case', 'x'),
    badParams: (ctx) => ctx.refuse(400, 'BIG', 'x', { blob: 'y'.repeat(5000) }),
    noMessage: (ctx) => ctx.refuse(400, 'EMPTY', ''),
  },
  hooks: { 'notes.beforeWrite': (ctx) => ctx.refuse(400, 'IN_HOOK', 'not here') },
};`,
);

describe('ctx.refuse in the sandbox', () => {
  it("answers an action's refusal with the add-on's status, code, message and params", async () => {
    const err = await failure(REFUSER, 'action', 'full');
    expect(err).toBeInstanceOf(AddonRefusal);
    expect({ status: err.status, code: err.code, message: err.message, params: err.params }).toEqual({
      status: 409,
      code: 'DESK_FULL',
      message: 'The desk is full.',
      params: { seats: 0 },
    });
  });

  it('is an Error the add-on can catch, and an error that merely looks like one is a failure', async () => {
    expect(await sandbox.call({ addon: REFUSER, target: { kind: 'action', name: 'caught' }, context, input: null })).toEqual({
      name: 'AddonRefusal',
      message: 'no',
      status: 400,
      code: 'NOPE',
    });
    const fake = await failure(REFUSER, 'action', 'lookalike');
    expect(fake.code).toBe('ADDON_FAILED');
    expect(addonFailureDetail(fake)).toEqual({ message: 'fake', stack: expect.stringContaining('addon:refuser@1.0.0/server.js:') });
  });

  it('refuses its own wrong arguments where they are given, and fails a refusal from a hook', async () => {
    for (const [name, why] of [
      ['badStatus', /status is a 4xx/],
      ['badCode', /code is 2-64 of A-Z/],
      ['badParams', /at most 4 KiB/],
      ['noMessage', /message is a non-empty string/],
    ] as const) {
      const err = await failure(REFUSER, 'action', name);
      expect(err.code, name).toBe('ADDON_FAILED');
      expect(err.params?.['message'], name).toMatch(why);
    }
    const hook = await failure(REFUSER, 'hook', 'notes.beforeWrite');
    expect(hook.code).toBe('ADDON_FAILED');
    expect(hook.params?.['message']).toBe('ctx.refuse is for actions; a beforeWrite hook returns {refuse: message}');
  });
});
