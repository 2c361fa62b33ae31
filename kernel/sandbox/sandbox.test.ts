import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import type { Json } from '../../addons-sdk/src/define.js';
import type { Capability } from '../../addons-sdk/src/manifest/addon.js';
import { AppError } from '../errors.js';
import type { HostCallHandler, SandboxAddon, SandboxHost } from './host.js';
import { outboundFetch } from './outbound-fetch.js';

/**
 * The sandbox host as the kernel runs it (kernel.sandbox of a real started instance): a real
 * child process with real isolates. While the attacks run, a stream of GET /api/v1/healthz and
 * another add-on's calls keep going; both must keep answering.
 */

const ATTACKER = 'attacker';

function addon(key: string, code: string, opts: { capabilities?: Capability[]; memoryMb?: number; cpuMs?: number; version?: string } = {}): SandboxAddon {
  return {
    key,
    version: opts.version ?? '1.0.0',
    code,
    limits: { memoryMb: opts.memoryMb ?? 32, cpuMs: opts.cpuMs ?? 100 },
    capabilities: opts.capabilities ?? [],
  };
}

const context = { instance: null, settings: {}, connection: null };

let instance: TestInstance;
let sandbox: SandboxHost;
let echo: Server;
let echoPort: number;
let networkFeatures = true;
const kv = new Map<string, Json>();
const hostCalls: { addon: string; capability: string; method: string; args: Json[] }[] = [];
/** Set by the kill -9 test: the host call that waits until the child is killed. */
let onSlow: (() => Promise<Json>) | null = null;
/** Host calls the crash tests left hanging, ended once they are over (each holds a host-call slot until it ends). */
const hung: (() => void)[] = [];
const endHung = () => hung.splice(0).forEach((end) => end());
const outbound: Record<string, string[]> = { fetcher: ['localhost', 'api.example.test', 'ok.localhost'] };

const handler: HostCallHandler = async (a, capability, method, args) => {
  hostCalls.push({ addon: a.key, capability, method, args });
  if (capability === 'kv') {
    const key = `${a.key}:${String(args[0])}`;
    if (method === 'get') {
      if (args[0] === 'slow' && onSlow) return onSlow();
      return kv.get(key) ?? null;
    }
    if (method === 'set') return (kv.set(key, args[1] ?? null), null);
    if (method === 'delete') return (kv.delete(key), null);
  }
  if (capability === 'db') {
    if (method === 'get' && args[1] === 'missing') throw new AppError('NOT_FOUND', { message: 'No such row.' });
    if (method === 'get' && args[1] === 'bug') throw new Error('/work/secret/path.ts exploded');
    return { rows: [{ id: 1, table: args[0] ?? null }], next: null };
  }
  if (capability === 'fetch') {
    const [url, init] = args as [string, { method?: string; headers?: Record<string, string>; body?: string } | undefined];
    const res = await outboundFetch(url, init, {
      allowedHosts: outbound[a.key] ?? [],
      networkFeatures,
      // Only names listed as ok.localhost may reach the loopback echo server (the test's own way in).
      allowLoopbackForTests: url.includes('ok.localhost'),
      resolve: async (host) =>
        host === 'ok.localhost' ? [{ address: '127.0.0.1', family: 4 }] : (await import('node:dns/promises')).lookup(host, { all: true }),
    });
    return { status: res.status, body: res.body };
  }
  return null;
};

async function codeOf(p: Promise<unknown>): Promise<{ code: string; status: number; params?: Record<string, unknown> }> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { code: e.code, status: e.status, params: e.params };
  }
  throw new Error('the call did not fail');
}

// ---- the background load: healthz and a well-behaved add-on ----
const healthz: { status: number; ms: number }[] = [];
const good = { ok: 0, failures: [] as { code: string; duringKill: boolean }[] };
let killing = false;
let stopLoad = false;
let loadDone: Promise<unknown> = Promise.resolve();
const WELL_BEHAVED = addon(
  'well-behaved',
  `export default { actions: { sum: async (ctx, input) => { await ctx.kv.set('n', input.n); return input.a + input.b + (await ctx.kv.get('n')); } } };`,
  {
    capabilities: ['kv'],
  },
);

async function healthzLoop(): Promise<void> {
  while (!stopLoad) {
    const t = performance.now();
    const res = await fetch(`${instance.url}/api/v1/healthz`).catch(() => null);
    healthz.push({ status: res?.status ?? 0, ms: performance.now() - t });
    await res?.arrayBuffer().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function goodAddonLoop(): Promise<void> {
  let n = 0;
  while (!stopLoad) {
    n++;
    const duringKill = killing;
    try {
      const out = await sandbox.call({ addon: WELL_BEHAVED, target: { kind: 'action', name: 'sum' }, context, input: { a: n, b: 1, n } });
      expect(out).toBe(2 * n + 1);
      good.ok++;
    } catch (err) {
      good.failures.push({ code: (err as AppError).code ?? String(err), duringKill: duringKill || killing });
    }
    await new Promise((r) => setTimeout(r, 30));
  }
}

beforeAll(async () => {
  instance = await startInstance();
  sandbox = instance.app.kernel.sandbox;
  sandbox.setHostCallHandler(handler);
  echo = createServer((req, res) => res.end(`echo ${req.method} ${req.url}`));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoPort = (echo.address() as AddressInfo).port;
  // The first call starts the child; the load begins once it runs.
  await sandbox.call({ addon: WELL_BEHAVED, target: { kind: 'action', name: 'sum' }, context, input: { a: 0, b: 0, n: 0 } });
  loadDone = Promise.all([healthzLoop(), healthzLoop(), goodAddonLoop()]);
});

afterAll(async () => {
  stopLoad = true;
  await loadDone;
  await new Promise((r) => echo?.close(r));
  await instance?.close();
});

describe('the sandbox host', () => {
  it('runs an action and returns its value', async () => {
    const a = addon(
      'basic',
      `export default { actions: { hello: (ctx, input) => ({ greeting: 'hello ' + input.name, addon: ctx.addon, instance: ctx.instance, theme: ctx.settings.theme, frozen: Object.isFrozen(ctx.settings), connection: ctx.connection }) } };`,
    );
    const out = await sandbox.call({
      addon: a,
      target: { kind: 'action', name: 'hello' },
      context: { instance: 'venue-1', settings: { theme: 'dark' }, connection: { token: 't' } },
      input: { name: 'ada' },
    });
    expect(out).toEqual({
      greeting: 'hello ada',
      addon: { key: 'basic', version: '1.0.0' },
      instance: 'venue-1',
      theme: 'dark',
      frozen: true,
      connection: { token: 't' },
    });
    // undefined comes back as null; an unknown action is its own error.
    expect(
      await sandbox.call({
        addon: addon('basic2', `export default { actions: { nothing: () => {} } };`),
        target: { kind: 'action', name: 'nothing' },
        context,
        input: null,
      }),
    ).toBeNull();
    expect((await codeOf(sandbox.call({ addon: a, target: { kind: 'action', name: 'nope' }, context, input: null }))).code).toBe('ADDON_HANDLER_MISSING');
    expect((await codeOf(sandbox.call({ addon: a, target: { kind: 'hook', name: 'hello' }, context, input: null }))).code).toBe('ADDON_HANDLER_MISSING');
  });

  it('lets a beforeWrite hook change the values, and returns a refusal as data', async () => {
    const a = addon(
      'hooks',
      `export default { hooks: { 'bookings.beforeWrite': (ctx, event) => event.values.name === 'bad' ? { refuse: 'No bad names.' } : { values: { ...event.values, name: event.values.name.toUpperCase(), seats: event.values.seats + 1 } } } };`,
    );
    const target = { kind: 'hook', name: 'bookings.beforeWrite' } as const;
    expect(
      await sandbox.call({ addon: a, target, context, input: { table: 'bookings', op: 'insert', values: { name: 'ada', seats: 2 }, previous: null } }),
    ).toEqual({
      values: { name: 'ADA', seats: 3 },
    });
    expect(
      await sandbox.call({ addon: a, target, context, input: { table: 'bookings', op: 'insert', values: { name: 'bad', seats: 2 }, previous: null } }),
    ).toEqual({ refuse: 'No bad names.' });
  });

  it('round-trips host calls as JSON copies, with the host errors the add-on may see', async () => {
    const a = addon(
      'roundtrip',
      `export default { actions: { go: async (ctx) => {
        await ctx.kv.set('greeting', { text: 'hi', n: [1, 2] });
        const back = await ctx.kv.get('greeting');
        back.n.push(3);
        const again = await ctx.kv.get('greeting');
        const page = await ctx.db.list('bookings', { where: { seats: { gte: 2 } } });
        let missing, bug;
        try { await ctx.db.get('bookings', 'missing'); } catch (e) { missing = { code: e.code, message: e.message }; }
        try { await ctx.db.get('bookings', 'bug'); } catch (e) { bug = { code: e.code, message: e.message }; }
        ctx.log.info('done', { rows: page.rows.length });
        return { back, again, page, missing, bug };
      } } };`,
      { capabilities: ['kv', 'db'] },
    );
    const before = hostCalls.length;
    const out = await sandbox.call({ addon: a, target: { kind: 'action', name: 'go' }, context, input: null });
    expect(out).toEqual({
      back: { text: 'hi', n: [1, 2, 3] },
      again: { text: 'hi', n: [1, 2] },
      page: { rows: [{ id: 1, table: 'bookings' }], next: null },
      missing: { code: 'NOT_FOUND', message: 'No such row.' },
      // A failure that is not an AppError reaches the add-on with no detail of the host.
      bug: { code: 'HOST_ERROR', message: 'The host call failed.' },
    });
    await vi_waitFor(() => hostCalls.slice(before).some((c) => c.capability === 'log'));
    const mine = hostCalls.slice(before).filter((c) => c.addon === 'roundtrip');
    expect(mine.find((c) => c.method === 'list')).toEqual({
      addon: 'roundtrip',
      capability: 'db',
      method: 'list',
      args: ['bookings', { where: { seats: { gte: 2 } } }],
    });
    expect(mine.find((c) => c.capability === 'log')).toEqual({ addon: 'roundtrip', capability: 'log', method: 'info', args: ['done', { rows: 1 }] });
  });

  it('gives an add-on only the capabilities it declared (log always)', async () => {
    const a = addon(
      'nocaps',
      `export default { actions: { look: (ctx) => ({ db: typeof ctx.db, kv: typeof ctx.kv, mail: typeof ctx.mail, fetch: typeof ctx.fetch, log: typeof ctx.log.info, keys: Object.keys(ctx).sort() }) } };`,
      { capabilities: ['kv'] },
    );
    expect(await sandbox.call({ addon: a, target: { kind: 'action', name: 'look' }, context, input: null })).toEqual({
      db: 'undefined',
      kv: 'object',
      mail: 'undefined',
      fetch: 'undefined',
      log: 'function',
      keys: ['addon', 'connection', 'instance', 'kv', 'log', 'refuse', 'settings'],
    });
  });

  it('answers ADDON_FAILED for an exception, with the add-on message only and nothing of the host', async () => {
    const a = addon(
      'thrower',
      `export default { actions: {
        plain: () => { throw new Error('the add-on broke'); },
        stack: () => { throw new Error(new Error('x').stack + ' ' + (typeof __filename)); },
        long: () => { throw new Error('y'.repeat(5000)); },
        odd: () => { throw { get message() { throw new Error('nope'); } }; },
      } };`,
    );
    const plain = await codeOf(sandbox.call({ addon: a, target: { kind: 'action', name: 'plain' }, context, input: null }));
    expect(plain).toEqual({ code: 'ADDON_FAILED', status: 502, params: { message: 'the add-on broke' } });
    const stack = await codeOf(sandbox.call({ addon: a, target: { kind: 'action', name: 'stack' }, context, input: null }));
    expect(stack.code).toBe('ADDON_FAILED');
    const text = String(stack.params?.message);
    expect(text).toContain('addon:thrower@1.0.0/server.js');
    expect(text).not.toMatch(/\/work\/|node_modules|\.ts\b|isolated-vm|sandbox-host/);
    expect(String((await codeOf(sandbox.call({ addon: a, target: { kind: 'action', name: 'long' }, context, input: null }))).params?.message)).toHaveLength(
      500,
    );
    expect((await codeOf(sandbox.call({ addon: a, target: { kind: 'action', name: 'odd' }, context, input: null }))).code).toBe('ADDON_FAILED');
    // A module that throws at its top level, and one that imports, fail the same way.
    expect(
      await codeOf(sandbox.call({ addon: addon('top', `throw new Error('at load');`), target: { kind: 'action', name: 'x' }, context, input: null })),
    ).toMatchObject({
      code: 'ADDON_FAILED',
      params: { message: 'at load' },
    });
    expect(
      (
        await codeOf(
          sandbox.call({
            addon: addon('imports', `import fs from 'node:fs'; export default {};`),
            target: { kind: 'action', name: 'x' },
            context,
            input: null,
          }),
        )
      ).code,
    ).toBe('ADDON_FAILED');
  });
});

describe('escapes and abuse', () => {
  const attack =
    (code: string, opts: Parameters<typeof addon>[2] = {}) =>
    (name: string, input: Json = null) =>
      sandbox.call({ addon: addon(ATTACKER, code, { memoryMb: 16, ...opts }), target: { kind: 'action', name }, context, input });

  it('stops an infinite loop, also one after an await (ADDON_TIMEOUT)', async () => {
    const run = attack(
      `export default { actions: { spin: () => { for (;;) {} }, later: async (ctx) => { await ctx.kv.get('x'); for (;;) {} }, micro: async () => { await null; while (true) {} } } };`,
      {
        capabilities: ['kv'],
      },
    );
    const pid = sandbox.stats().pid;
    expect(await codeOf(run('spin'))).toMatchObject({ code: 'ADDON_TIMEOUT', status: 504 });
    expect((await codeOf(run('later'))).code).toBe('ADDON_TIMEOUT');
    expect((await codeOf(run('micro'))).code).toBe('ADDON_TIMEOUT');
    // The CPU watchdog stopped them inside the child, not the parent's last resort (killing the child).
    expect(sandbox.stats().pid).toBe(pid);
  });

  it('stops memory bombs (ADDON_MEMORY_LIMIT) and discards the isolate', async () => {
    const run = attack(
      `export default { actions: {
      arrays: () => { const a = []; for (;;) a.push(new Array(10000).fill(1.5)); },
      strings: () => { const keep = []; for (let i = 0; ; i++) keep.push(('x'.repeat(1 << 20) + i).toUpperCase()); },
      buffer: () => new ArrayBuffer(1024 * 1024 * 1024).byteLength,
      buffers: () => { const b = []; for (let i = 0; i < 200; i++) b.push(new Uint8Array(4 * 1024 * 1024)); return b.length; },
      fine: () => 'still here',
      forty: () => new Array(5e6).fill(1.5).length,
    } };`,
      { cpuMs: 2000 },
    );
    for (const name of ['arrays', 'buffer', 'buffers', 'strings'])
      expect({ name, ...(await codeOf(run(name))) }).toMatchObject({ name, code: 'ADDON_MEMORY_LIMIT', status: 502 });
    expect(await run('fine')).toBe('still here');
    // The add-on's own limit applies: 40 MB of doubles is over 16 MB and within 96 MB.
    expect((await codeOf(run('forty'))).code).toBe('ADDON_MEMORY_LIMIT');
    expect(
      await sandbox.call({
        addon: addon(ATTACKER, `export default { actions: { forty: () => new Array(5e6).fill(1.5).length } };`, { memoryMb: 96, cpuMs: 2000 }),
        target: { kind: 'action', name: 'forty' },
        context,
        input: null,
      }),
    ).toBe(5e6);
  });

  it('offers no WebAssembly, whose memory the isolate limit does not count (40 MiB under 16 MiB is refused)', async () => {
    const run = attack(`export default { actions: {
      wasm: () => new WebAssembly.Memory({ initial: 640 }).buffer.byteLength,
      hidden: () => typeof globalThis.WebAssembly + ',' + Object.getOwnPropertyNames(globalThis).includes('WebAssembly'),
    } };`);
    const out = await codeOf(run('wasm'));
    expect(out).toMatchObject({ code: 'ADDON_FAILED', status: 502 });
    expect(String(out.params?.message)).toMatch(/WebAssembly is not defined/);
    expect(await run('hidden')).toBe('undefined,false');
  });

  it('turns deep recursion into ADDON_FAILED, not a crash', async () => {
    const pid = sandbox.stats().pid;
    // Overflowing the stack takes a few ms of CPU, but on a loaded machine the default 100 ms
    // budget could run out first (ADDON_TIMEOUT): with 2 s (the most an add-on may declare), only
    // the overflow explains the end.
    const run = attack(`export default { actions: { deep: () => { const f = (n) => f(n + 1) + 1; return f(0); }, fine: () => 1 } };`, { cpuMs: 2000 });
    const out = await codeOf(run('deep'));
    expect(out.code).toBe('ADDON_FAILED');
    expect(String(out.params?.message)).toMatch(/call stack/i);
    expect(await run('fine')).toBe(1);
    expect(sandbox.stats().pid).toBe(pid);
  });

  it('bounds a promise flood', async () => {
    const pid = sandbox.stats().pid;
    const run = attack(`export default { actions: {
      chain: () => { const f = () => Promise.resolve().then(f); f(); return new Promise(() => {}); },
      pile: async () => { const ps = []; for (;;) ps.push(new Promise(() => {})); },
      fine: () => 2,
    } };`);
    for (const name of ['chain', 'pile']) expect(['ADDON_MEMORY_LIMIT', 'ADDON_TIMEOUT']).toContain((await codeOf(run(name))).code);
    expect(await run('fine')).toBe(2);
    expect(sandbox.stats().pid).toBe(pid);
  });

  it('gives no Node API and no host object, through globals or through what the host handed in', async () => {
    const run = attack(
      `export default { actions: { look: async (ctx, input) => {
        const F = ctx.kv.get.constructor;
        const probe = (fn) => { try { const v = fn(); return v === undefined ? 'undefined' : typeof v === 'string' ? v : typeof v === 'object' && v !== null ? Object.getOwnPropertyNames(v).sort().join(',') : typeof v; } catch (e) { return 'threw ' + e.constructor.name; } };
        let imported;
        try { await import('node:fs'); imported = 'yes'; } catch (e) { imported = 'refused'; }
        return {
          process: typeof process, require: typeof require, module: typeof module, global: typeof global, Buffer: typeof Buffer, console: typeof console,
          setTimeout: typeof setTimeout, fetch: typeof fetch, importMeta: Object.keys(import.meta),
          globals: Object.getOwnPropertyNames(globalThis).filter((k) => !/^[A-Z]/.test(k)).sort(),
          viaFunction: probe(() => F('return typeof process')()),
          viaFunctionGlobal: probe(() => F('return Object.getOwnPropertyNames(this).filter((k) => !/^[A-Z]/.test(k)).join()')()),
          viaLog: probe(() => ctx.log.info.constructor('return typeof require + typeof process')()),
          viaInput: probe(() => input.constructor.constructor('return typeof process')()),
          viaCtx: probe(() => ctx.constructor.constructor('return this.process')()),
          viaPromise: probe(() => ctx.kv.get('x').constructor.constructor('return typeof process')()),
          fnSource: ctx.kv.get.toString().includes('hostRef'),
          imported,
        };
      } } };`,
      { capabilities: ['kv'] },
    );
    const out = (await run('look', { a: 1 })) as Record<string, unknown>;
    expect(out).toMatchObject({
      process: 'undefined',
      require: 'undefined',
      module: 'undefined',
      global: 'undefined',
      Buffer: 'undefined',
      console: 'undefined',
      setTimeout: 'undefined',
      fetch: 'undefined',
      importMeta: [],
      viaFunction: 'undefined',
      viaLog: 'undefinedundefined',
      viaInput: 'undefined',
      viaCtx: 'undefined',
      viaPromise: 'undefined',
      imported: 'refused',
    });
    // Only the language's own globals: nothing the host put there.
    const standard = [
      'decodeURI',
      'decodeURIComponent',
      'encodeURI',
      'encodeURIComponent',
      'escape',
      'eval',
      'globalThis',
      'isFinite',
      'isNaN',
      'parseFloat',
      'parseInt',
      'undefined',
      'unescape',
    ];
    expect(out.globals).toEqual(standard);
    expect(String(out.viaFunctionGlobal).split(',').sort()).toEqual(standard);
  });

  it('keeps prototype pollution inside the add-on version that did it (its own warm context, AO36)', async () => {
    const code = `export default { actions: {
      pollute: (ctx, input) => {
        input.__proto__.polluted = 1;
        Object.prototype.x = 1;
        Array.prototype.y = 2;
        JSON.parse = () => 'hacked';
        Object.freeze = (o) => o;
        return JSON.parse('{"__proto__": {"fromResult": 1}}'.replace('hacked', ''));
      },
      check: (ctx, input) => ({ polluted: typeof ({}).polluted, x: typeof ({}).x, y: typeof [].y, json: JSON.parse('[1]'), frozen: Object.isFrozen(ctx.settings), admin: typeof input.admin, ownProto: Object.keys(input) }),
    } };`;
    const run =
      (version: string, key = ATTACKER) =>
      (name: string, input: Json) =>
        sandbox.call({ addon: addon(key, code, { memoryMb: 16, version }), target: { kind: 'action', name }, context, input });
    const polluted = await run('1.0.0')('pollute', { a: 1 });
    expect(polluted).toBe('hacked');
    const probe: Record<string, unknown> = {};
    expect(probe.polluted).toBeUndefined();
    expect(probe.x).toBeUndefined();
    // A host value with a __proto__ key stays an own key inside, and sets no prototype.
    const input = JSON.parse('{"__proto__": {"admin": true}, "b": 2}') as Json;
    const clean = { polluted: 'undefined', x: 'undefined', y: 'undefined', json: [1], frozen: true, admin: 'undefined', ownProto: ['__proto__', 'b'] };
    // Another version of the same add-on and another add-on with the same code each have a context of their own.
    expect(await run('1.0.1')('check', input)).toEqual(clean);
    expect(await run('1.0.0', 'attacker-twin')('check', input)).toEqual(clean);
    // The version that did it sees its own doing (module state persists between its calls), and the
    // host's side of its ctx still holds: settings frozen, input parsed with the kept JSON.parse.
    expect(await run('1.0.0')('check', input)).toEqual({ ...clean, polluted: 'number', x: 'number', y: 'number', json: 'hacked' });
    // A result with a __proto__ key crosses without it.
    const back = (await sandbox.call({
      addon: addon('proto-result', `export default { actions: { r: () => JSON.parse('{"__proto__": {"polluted": 1}, "ok": true}') } };`),
      target: { kind: 'action', name: 'r' },
      context,
      input: null,
    })) as Record<string, unknown>;
    expect(back).toEqual({ ok: true });
    // Transfer options read through the prototype would change how values cross; the bootstrap's have none.
    const tamper = addon(
      'tamper',
      `export default { actions: { go: async (ctx) => {
        for (const k of ['reference', 'promise', 'copy', 'externalCopy', 'arguments', 'result', 'timeout']) Object.defineProperty(Object.prototype, k, { get() { throw new Error('read ' + k); }, configurable: true });
        await ctx.kv.set('t', { v: 1 });
        ctx.log.warn('still logging');
        return await ctx.kv.get('t');
      } } };`,
      { capabilities: ['kv'] },
    );
    expect(await sandbox.call({ addon: tamper, target: { kind: 'action', name: 'go' }, context, input: null })).toEqual({ v: 1 });
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stops code a polluted prototype runs while the next call builds its ctx (ADDON_TIMEOUT), and drops that context', async () => {
    const run = attack(
      `export default { actions: { trap: () => { Object.defineProperty(Object.prototype, 'log', { set() { for (;;) {} }, configurable: true }); return 'set'; }, next: () => 'fresh' } };`,
    );
    expect(await run('trap')).toBe('set');
    expect((await codeOf(run('next'))).code).toBe('ADDON_TIMEOUT');
    // The context went with the limit: the next call has a fresh module and a clean prototype.
    expect(await run('next')).toBe('fresh');
  });

  it('refuses the 101st host call of one call (ADDON_HOST_CALLS), even if the add-on catches', async () => {
    const run = attack(
      `export default { actions: {
      calls: async (ctx, input) => { for (let i = 0; i < input.n; i++) { try { await ctx.kv.get('k'); } catch (e) {} } return input.n; },
      parallel: async (ctx) => { await Promise.allSettled(Array.from({ length: 500 }, () => ctx.kv.get('k'))); return 'done'; },
      logs: (ctx) => { for (let i = 0; i < 1000; i++) ctx.log.info('spam ' + i); return 'logged'; },
    } };`,
      { capabilities: ['kv'], cpuMs: 1000 },
    );
    expect(await run('calls', { n: 100 })).toBe(100);
    expect(await codeOf(run('calls', { n: 101 }))).toMatchObject({ code: 'ADDON_HOST_CALLS', status: 429 });
    expect((await codeOf(run('parallel'))).code).toBe('ADDON_HOST_CALLS');
    expect((await codeOf(run('logs'))).code).toBe('ADDON_HOST_CALLS');
  });

  it('runs a call lost to an outside kill once more if it only read, answers ADDON_CRASHED if it wrote; outside kills pause nobody', async () => {
    const run = attack(
      `export default { actions: { slow: async (ctx) => ctx.kv.get('slow'), wrote: async (ctx) => { await ctx.kv.set('w', 1); return ctx.kv.get('slow'); }, fine: () => 'back' } };`,
      { capabilities: ['kv'] },
    );
    // Three kill -9s from outside while this add-on alone has calls in flight: not its doing, so it is never paused.
    const readers: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      let inside = 0;
      onSlow = () => {
        inside++;
        return new Promise<Json>((r) => hung.push(() => r(null)));
      };
      const { pid, starts, retries } = sandbox.stats();
      expect(pid).not.toBeNull();
      const reader = run('slow').then(
        (v) => ({ answered: v }),
        (e: AppError) => ({ code: e.code }),
      );
      const writer = codeOf(run('wrote'));
      await vi_waitFor(() => inside === 2);
      // The run again of the reader is answered at once.
      onSlow = null;
      killing = true;
      process.kill(pid!, 'SIGKILL');
      expect(await writer).toMatchObject({ code: 'ADDON_CRASHED', status: 502 });
      readers.push(await reader);
      // The first runs' host calls, still held, give their slots back (four an add-on at once).
      endHung();
      expect(await run('fine')).toBe('back');
      killing = false;
      expect(sandbox.stats().starts).toBe(starts + 1);
      // The reader, and maybe a call of the well-behaved add-on that had not written yet.
      expect(sandbox.stats().retries).toBeGreaterThanOrEqual(retries + 1);
      expect(sandbox.stats().pid).not.toBe(pid);
    }
    // Run again and answered; on a loaded machine a new child may take longer than the call had left (its 5 s hold).
    for (const r of readers) expect([{ answered: null }, { code: 'ADDON_TIMEOUT' }]).toContainEqual(r);
    expect(readers).toContainEqual({ answered: null });
    endHung();
  }, 60_000);

  it('survives an isolate that aborts the whole child (ADDON_CRASHED), pauses the add-on that keeps doing it, and never a bystander in flight', async () => {
    // The well-behaved add-on keeps running, and another sits in a read during every crash: neither
    // is blamed, and the reader's call runs again on the new child and is answered (AO37).
    killing = true;
    const holder = addon('bystander', `export default { actions: { hold: async (ctx) => ctx.kv.get('slow'), ok: () => 'ok' } };`, { capabilities: ['kv'] });
    try {
      // One huge allocation is beyond what V8 can refuse gracefully: it aborts the process the isolate lives in.
      const aborter = addon('aborter', `export default { actions: { bomb: () => new Array(1e8).fill(0).length } };`, { memoryMb: 16, cpuMs: 2000 });
      const bomb = () => sandbox.call({ addon: aborter, target: { kind: 'action', name: 'bomb' }, context, input: null });
      const other = () => sandbox.call({ addon: holder, target: { kind: 'action', name: 'ok' }, context, input: null });
      const { crashes } = sandbox.stats();
      // On a busy machine the allocation can outlast the wall time: the parent then gives up on
      // the call (ADDON_TIMEOUT), kills the child, and that counts against the add-on too.
      const seen: string[] = [];
      const held: string[] = [];
      let paused: Awaited<ReturnType<typeof codeOf>> | null = null;
      for (let i = 0; i < 8 && !paused; i++) {
        let entered!: () => void;
        const inside = new Promise<void>((r) => (entered = r));
        onSlow = () => (entered(), new Promise<Json>((r) => hung.push(() => r(null))));
        const hold = sandbox.call({ addon: holder, target: { kind: 'action', name: 'hold' }, context, input: null }).then(
          () => 'answered',
          (e: AppError) => e.code,
        );
        await inside;
        // Its run again is answered at once.
        onSlow = null;
        const outcome = await codeOf(bomb());
        if (outcome.code === 'ADDON_PAUSED') {
          paused = outcome;
          onSlow = null;
          void hold;
        } else {
          seen.push(String(outcome.code));
          expect(['ADDON_CRASHED', 'ADDON_TIMEOUT']).toContain(outcome.code);
          // A crash of the bomb's own answers the bystander; a bomb the parent gave up on after the wall time ran out left the bystander's call no time to run again.
          if (outcome.code === 'ADDON_CRASHED') expect(await hold).toBe('answered');
          held.push(await hold);
          expect(await other()).toBe('ok');
        }
      }
      // (On a loaded machine all three can be the parent's give-up: the point is who is paused.)
      expect(seen.length).toBeGreaterThanOrEqual(3);
      // The bystander's call in flight ran again (or ran out of time first on a slow machine); it was never paused.
      for (const c of held) expect(['answered', 'ADDON_CRASHED', 'ADDON_TIMEOUT', 'ADDON_FAILED']).toContain(c);
      expect(sandbox.stats().crashes).toBe(crashes + 3);
      const { starts } = sandbox.stats();
      expect(paused).toMatchObject({ code: 'ADDON_PAUSED', status: 503 });
      expect(Number(paused!.params?.retryAfter)).toBeGreaterThan(0);
      // Refused without running: no new child.
      expect(sandbox.stats().starts).toBe(starts);
      expect(await other()).toBe('ok');
      // A bomb the child gave up on may still take its process down a moment later: let that
      // happen inside this test's window, not in the next one's.
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      endHung();
      onSlow = null;
      killing = false;
    }
  }, 120_000);

  it('lets fetch reach listed hosts only, never loopback, and only with network features on', async () => {
    const fetcher = addon(
      'fetcher',
      `export default { actions: { get: async (ctx, input) => { try { return await ctx.fetch(input.url); } catch (e) { return { code: e.code }; } } } };`,
      { capabilities: ['fetch'] },
    );
    const get = (url: string) => sandbox.call({ addon: fetcher, target: { kind: 'action', name: 'get' }, context, input: { url } });
    // The test's own way to a loopback server works, so the refusals below are the checks' doing.
    expect(await get(`http://ok.localhost:${echoPort}/hi`)).toEqual({ status: 200, body: 'echo GET /hi' });
    expect(await get(`http://not-listed.example:${echoPort}/`)).toEqual({ code: 'ADDON_OUTBOUND_REFUSED' });
    expect(await get(`http://127.0.0.1:${echoPort}/`)).toEqual({ code: 'ADDON_OUTBOUND_REFUSED' });
    expect(await get(`http://[::1]:${echoPort}/`)).toEqual({ code: 'ADDON_OUTBOUND_REFUSED' });
    expect(await get(`http://localhost:${echoPort}/`)).toEqual({ code: 'ADDON_OUTBOUND_REFUSED' });
    expect(await get(`file:///etc/passwd`)).toEqual({ code: 'ADDON_OUTBOUND_REFUSED' });
    networkFeatures = false;
    try {
      expect(await get(`http://ok.localhost:${echoPort}/hi`)).toEqual({ code: 'NETWORK_FEATURES_DISABLED' });
    } finally {
      networkFeatures = true;
    }
  });
});

describe('warm contexts (AO36)', () => {
  const WARM = `let calls = 0;
let last = null;
export default { actions: {
  visit: async (ctx, input) => {
    calls++;
    const previous = last;
    last = { instance: ctx.instance, who: ctx.settings.who };
    globalThis.firstCtx ??= ctx;
    let oldCtx = null;
    if (globalThis.firstCtx !== ctx) {
      try { await globalThis.firstCtx.kv.get('k'); oldCtx = 'answered'; } catch (e) { oldCtx = 'refused'; }
    }
    return { calls, previous, instance: ctx.instance, who: ctx.settings.who, sameCtx: globalThis.firstCtx === ctx, oldCtx, input };
  },
  fail: () => { calls = 100; throw new Error('broken'); },
} };`;
  const warm = (key: string, version = '1.0.0') => addon(key, WARM, { capabilities: ['kv'], version });
  const visit = (a: SandboxAddon, instance: string, who: string, input: Json = null) =>
    sandbox.call({ addon: a, target: { kind: 'action', name: 'visit' }, context: { instance, settings: { who }, connection: null }, input }) as Promise<
      Record<string, unknown>
    >;

  it("keeps a version's module state between its calls, gives each call its own ctx, and never lets one call's ctx reach the host in another", async () => {
    const v1 = warm('warm');
    const before = hostCalls.length;
    expect(await visit(v1, 'venue-a', 'alice', { n: 1 })).toEqual({
      calls: 1,
      previous: null,
      instance: 'venue-a',
      who: 'alice',
      sameCtx: true,
      oldCtx: null,
      input: { n: 1 },
    });
    // The next caller: the module's state is there (as documented), its ctx is its own, and the
    // first caller's ctx, kept in a global, is refused by the host.
    expect(await visit(v1, 'venue-b', 'bob')).toEqual({
      calls: 2,
      previous: { instance: 'venue-a', who: 'alice' },
      instance: 'venue-b',
      who: 'bob',
      sameCtx: false,
      oldCtx: 'refused',
      input: null,
    });
    expect(hostCalls.slice(before).filter((c) => c.addon === 'warm')).toEqual([]);
    // Another version of it, and another add-on with the same code, start from nothing.
    expect(await visit(warm('warm', '1.1.0'), 'venue-a', 'carol')).toMatchObject({ calls: 1, previous: null, who: 'carol' });
    expect(await visit(warm('warm-twin'), 'venue-a', 'dave')).toMatchObject({ calls: 1, previous: null, who: 'dave' });
    expect(await visit(v1, 'venue-c', 'erin')).toMatchObject({ calls: 3, previous: { who: 'bob' }, who: 'erin' });
  });

  it('drops a context whose call threw, one forgotten (removed, disabled, upgraded), and one that served its calls', async () => {
    const a = warm('warm-drop');
    await visit(a, 'x', 'x');
    expect(await visit(a, 'x', 'x')).toMatchObject({ calls: 2 });
    expect((await codeOf(sandbox.call({ addon: a, target: { kind: 'action', name: 'fail' }, context, input: null }))).code).toBe('ADDON_FAILED');
    expect(await visit(a, 'x', 'x')).toMatchObject({ calls: 1, previous: null });
    expect(await visit(a, 'x', 'x')).toMatchObject({ calls: 2 });
    sandbox.forget(['warm-drop@1.0.0']);
    expect(await visit(a, 'x', 'x')).toMatchObject({ calls: 1, previous: null });
    // A context serves 1,000 calls, then a new one takes over.
    let calls = 1;
    for (let i = 0; i < 1000; i++) calls = (await visit(a, 'x', 'x')).calls as number;
    expect(calls).toBe(1);
  }, 60_000);
});

describe('fairness', () => {
  it('keeps room for other add-ons while one holds every slot it can', async () => {
    // The flood's calls sit in a host call the test holds: they take slots, not CPU.
    let entered = 0;
    let release!: () => void;
    const held = new Promise<Json>((r) => (release = () => r('released')));
    onSlow = () => (entered++, held);
    try {
      const hold = addon('flooder', `export default { actions: { hold: async (ctx) => ctx.kv.get('slow') } };`, { capabilities: ['kv'] });
      const other = addon('other', `export default { actions: { ping: (ctx, input) => input + 1 } };`);
      let settled = 0;
      const flood = Array.from({ length: 8 }, () =>
        sandbox.call({ addon: hold, target: { kind: 'action', name: 'hold' }, context, input: null }).finally(() => settled++),
      );
      // 32 MiB a call: four at once (ADDON_ACTIVE_MB / memoryMb, at most four).
      await vi_waitFor(() => entered >= 4);
      // Without a share per add-on, the flood would hold all eight slots until its wall time ran out.
      expect(await sandbox.call({ addon: other, target: { kind: 'action', name: 'ping' }, context, input: 41 })).toBe(42);
      expect(settled).toBe(0);
      expect(entered).toBe(4);
      release();
      expect(await Promise.all(flood)).toEqual(Array(8).fill('released'));
    } finally {
      release();
      onSlow = null;
    }
  });
});

describe('meanwhile', () => {
  it('kept answering healthz and the other add-on', async () => {
    await vi_waitFor(() => healthz.length > 20 && good.ok > 5);
    const times = healthz.map((h) => h.ms).sort((a, b) => a - b);
    const p99 = times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]!;
    console.log(
      `healthz during the attacks: ${healthz.length} requests, p50 ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
    );
    console.log(`well-behaved add-on: ${good.ok} calls answered, ${good.failures.length} failed (${JSON.stringify(good.failures)})`);
    expect(healthz.filter((h) => h.status !== 200)).toEqual([]);
    // Only the kill -9 may fail the other add-on's calls that were in flight with it.
    expect(good.failures.filter((f) => !(f.duringKill && f.code === 'ADDON_CRASHED'))).toEqual([]);
  });
});

async function vi_waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
