/**
 * The sandbox host child process (DESIGN D25): forked by host.ts with `--no-node-snapshot`, it
 * runs add-on code in isolated-vm isolates and talks to the API process over IPC only. An
 * isolate that takes the whole process down (a V8 OOM abort) takes only this process; the
 * parent answers 502 ADDON_CRASHED and forks a new one on the next call.
 *
 * Per call: a pooled warm isolate of the add-on (or a new one with its memory limit), a fresh
 * context, the bootstrap (bootstrap.ts), the add-on's module compiled from the cached code (V8
 * code cache kept per hash), and a watchdog that disposes the isolate past the CPU or wall
 * limit. Host calls go to the parent as JSON strings and come back as JSON strings.
 */
import ivm from 'isolated-vm';
import { BOOTSTRAP_SOURCE } from './bootstrap.js';
import { HOST_METHODS, type CallMessage, type FailureCode, type HostCapability, type ToChild, type ToParent } from './protocol.js';

/** Idle warm isolates kept: per add-on version, and in all (least recently used goes first). */
const IDLE_PER_ADDON = 2;
const IDLE_TOTAL = 8;
/** An isolate is disposed after this many calls (its heap is not grown forever). */
const MAX_USES = 200;
/** Calls running at once, in all and per add-on; more wait (their wall time runs while they wait). */
const MAX_ACTIVE = 4;
const ACTIVE_PER_ADDON = 2;
/** Code kept by hash; the parent remembers fewer, so what it thinks we have, we have. */
const CODE_CACHE = 128;
const WATCHDOG_MS = 5;
/** Arguments of one host call, as JSON. */
const MAX_HOST_ARGS = 1024 * 1024;
const MAX_LOG_JSON = 16 * 1024;
/** A call's result, as JSON. */
const MAX_RESULT = 4 * 1024 * 1024;

interface PooledIsolate {
  isolate: ivm.Isolate;
  bootstrap: ivm.Script;
  uses: number;
}

interface CodeEntry {
  code: string;
  cachedData?: ivm.ExternalCopy<ArrayBuffer>;
}

interface Running {
  msg: CallMessage;
  entry: PooledIsolate;
  hostCalls: number;
  nextHc: number;
  pending: Map<number, (envelope: string) => void>;
  breach: FailureCode | null;
  done: boolean;
  finish: (r: ToParent) => void;
}

const send = (m: ToParent) => {
  if (process.connected) process.send!(m);
};

const codes = new Map<string, CodeEntry>();
const idle = new Map<string, PooledIsolate[]>();
/** Pool keys, least recently used first, one per idle isolate. */
const idleOrder: string[] = [];
const running = new Map<number, Running>();
let active = 0;
const activeBy = new Map<string, number>();
const waiting: { addon: string; go: () => void }[] = [];

function poolKey(m: CallMessage): string {
  return `${m.addon.key}@${m.addon.version}#${m.addon.hash}/${m.addon.limits.memoryMb}`;
}

function dispose(entry: PooledIsolate): void {
  try {
    if (!entry.isolate.isDisposed) entry.isolate.dispose();
  } catch {
    /* already gone */
  }
}

function takeIdle(key: string): PooledIsolate | null {
  const list = idle.get(key);
  const entry = list?.pop();
  if (!entry) return null;
  if (list!.length === 0) idle.delete(key);
  idleOrder.splice(idleOrder.lastIndexOf(key), 1);
  return entry;
}

function giveBack(key: string, entry: PooledIsolate): void {
  const list = idle.get(key) ?? [];
  if (list.length >= IDLE_PER_ADDON || entry.uses >= MAX_USES || entry.isolate.isDisposed) return dispose(entry);
  list.push(entry);
  idle.set(key, list);
  idleOrder.push(key);
  while (idleOrder.length > IDLE_TOTAL) {
    const oldest = idleOrder[0]!;
    const victims = idle.get(oldest)!;
    const victim = victims.shift()!;
    if (victims.length === 0) idle.delete(oldest);
    idleOrder.shift();
    dispose(victim);
  }
}

/**
 * An isolate V8 lost control of (a huge allocation past its limit) is reported by isolated-vm
 * here instead of aborting the process: the parent learns whose it was (the crash is put down
 * to that add-on alone), then this process ends, as isolated-vm asks.
 */
function fatal(addon: string): void {
  // process.exit() hangs here (its handlers reach the lost isolate): the process kills itself.
  const end = () => process.kill(process.pid, 'SIGKILL');
  setTimeout(end, 1000).unref();
  if (process.connected) process.send!({ t: 'fatal', addon } satisfies ToParent, end);
  else end();
}

async function newIsolate(memoryMb: number, addon: string): Promise<PooledIsolate> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb, onCatastrophicError: () => fatal(addon) });
  const bootstrap = await isolate.compileScript(BOOTSTRAP_SOURCE, { filename: 'svc:bootstrap.js' });
  return { isolate, bootstrap, uses: 0 };
}

/** Waits for a slot: MAX_ACTIVE in all and ACTIVE_PER_ADDON per add-on, so one add-on's flood leaves room for the others. */
async function slot(addon: string): Promise<void> {
  if (active < MAX_ACTIVE && (activeBy.get(addon) ?? 0) < ACTIVE_PER_ADDON) return take(addon);
  await new Promise<void>((resolve) => waiting.push({ addon, go: resolve }));
}

function take(addon: string): void {
  active++;
  activeBy.set(addon, (activeBy.get(addon) ?? 0) + 1);
}

function release(addon: string): void {
  active--;
  const left = (activeBy.get(addon) ?? 1) - 1;
  if (left === 0) activeBy.delete(addon);
  else activeBy.set(addon, left);
  // The first waiting call whose add-on is under its share goes next.
  for (let i = 0; i < waiting.length && active < MAX_ACTIVE; i++) {
    const w = waiting[i]!;
    if ((activeBy.get(w.addon) ?? 0) >= ACTIVE_PER_ADDON) continue;
    waiting.splice(i--, 1);
    take(w.addon);
    w.go();
  }
}

/** Breaks off a call at a limit: its isolate is disposed (whatever runs in it stops) and not pooled. */
function breakOff(r: Running, code: FailureCode): void {
  if (r.done || r.breach) return;
  r.breach = code;
  dispose(r.entry);
  r.finish({ t: 'result', id: r.msg.id, ok: false, code });
}

function hostCallback(r: Running) {
  return async (capability: unknown, method: unknown, args: unknown): Promise<string> => {
    const refuse = (code: string, message: string) => JSON.stringify({ ok: false, code, message });
    if (r.done) return refuse('ADDON_CALL_OVER', 'This call is over.');
    if (++r.hostCalls > r.msg.maxHostCalls) {
      breakOff(r, 'ADDON_HOST_CALLS');
      return refuse('ADDON_HOST_CALLS', 'Too many host calls.');
    }
    if (typeof capability !== 'string' || typeof method !== 'string' || typeof args !== 'string') return refuse('BAD_REQUEST', 'Malformed host call.');
    if (capability === 'log' || !(r.msg.addon.capabilities as string[]).includes(capability) || !HOST_METHODS[capability as HostCapability]?.includes(method))
      return refuse('FORBIDDEN', `The add-on did not declare ${capability}.${method}.`);
    if (args.length > MAX_HOST_ARGS) return refuse('PAYLOAD_TOO_LARGE', 'Host call arguments over 1 MiB.');
    const hc = r.nextHc++;
    const answer = new Promise<string>((resolve) => r.pending.set(hc, resolve));
    send({ t: 'host', id: r.msg.id, hc, capability: capability as HostCapability, method, args });
    return answer;
  };
}

function logCallback(r: Running) {
  return (level: unknown, json: unknown): void => {
    if (r.done) return;
    if (++r.hostCalls > r.msg.maxHostCalls) return breakOff(r, 'ADDON_HOST_CALLS');
    if (typeof level !== 'string' || !HOST_METHODS.log.includes(level) || typeof json !== 'string') return;
    const args = json.length > MAX_LOG_JSON ? JSON.stringify([String(JSON.parse(json)[0]).slice(0, 2000), { truncated: true }]) : json;
    send({ t: 'host', id: r.msg.id, hc: -1, capability: 'log', method: level, args });
  };
}

/** The stack of an add-on's failure, for the API process to map to the author's source (bounded). */
function stackOf(stack: unknown): { stack?: string } {
  return typeof stack === 'string' && stack ? { stack: stack.slice(0, 16 * 1024) } : {};
}

function remember(hash: string, entry: CodeEntry): void {
  codes.delete(hash);
  codes.set(hash, entry);
  while (codes.size > CODE_CACHE) codes.delete(codes.keys().next().value!);
}

async function handleCall(msg: CallMessage): Promise<void> {
  const started = Date.now();
  let code = codes.get(msg.addon.hash);
  if (msg.code !== undefined && !code) remember(msg.addon.hash, (code = { code: msg.code }));
  if (!code) return send({ t: 'need-code', id: msg.id });
  remember(msg.addon.hash, code);

  await slot(msg.addon.key);
  if (Date.now() - started > msg.wallMs) {
    // Its whole wall time went waiting for a slot.
    release(msg.addon.key);
    return send({ t: 'result', id: msg.id, ok: false, code: 'ADDON_TIMEOUT' });
  }
  const key = poolKey(msg);
  let result: ToParent | null = null;
  let entry: PooledIsolate;
  try {
    entry = takeIdle(key) ?? (await newIsolate(msg.addon.limits.memoryMb, `${msg.addon.key}@${msg.addon.version}`));
  } catch {
    release(msg.addon.key);
    return send({ t: 'result', id: msg.id, ok: false, code: 'ADDON_FAILED' });
  }
  entry.uses++;
  const r: Running = {
    msg,
    entry,
    hostCalls: 0,
    nextHc: 0,
    pending: new Map(),
    breach: null,
    done: false,
    finish: (m) => {
      if (r.done) return;
      r.done = true;
      result = m;
      send(m);
    },
  };
  running.set(msg.id, r);
  const { isolate } = entry;
  let cpuStart: bigint | null = null;
  const watchdog = setInterval(() => {
    if (r.done || isolate.isDisposed) return;
    const cpuMs = cpuStart === null ? 0 : Number(isolate.cpuTime - cpuStart) / 1e6;
    if (cpuMs > msg.addon.limits.cpuMs || Date.now() - started > msg.wallMs) breakOff(r, 'ADDON_TIMEOUT');
  }, WATCHDOG_MS);
  const refs: { release(): void }[] = [];
  let context: ivm.Context | null = null;
  let failedInAddon = false;
  try {
    context = await isolate.createContext();
    const remaining = () => Math.max(1, msg.wallMs - (Date.now() - started));
    const setup = (await entry.bootstrap.run(context, { reference: true, timeout: 1000 })) as ivm.Reference;
    const hostRef = new ivm.Reference(hostCallback(r));
    const logRef = new ivm.Reference(logCallback(r));
    refs.push(setup, hostRef, logRef);
    const meta = JSON.stringify({
      ...JSON.parse(msg.context),
      addon: { key: msg.addon.key, version: msg.addon.version },
      capabilities: msg.addon.capabilities,
      target: msg.target,
    });
    const run = (await setup.apply(undefined, [hostRef, logRef, meta], { result: { reference: true }, timeout: 1000 })) as ivm.Reference;
    refs.push(run);
    const module = await isolate.compileModule(code.code, {
      filename: `addon:${msg.addon.key}@${msg.addon.version}/server.js`,
      ...(code.cachedData ? { cachedData: code.cachedData } : { produceCachedData: true }),
    });
    refs.push(module);
    const produced = (module as ivm.Module & { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
    if (!code.cachedData && produced) code.cachedData = produced;
    if (module.dependencySpecifiers.length > 0) {
      r.finish({
        t: 'result',
        id: msg.id,
        ok: false,
        code: 'ADDON_FAILED',
        message: `server.js imports ${JSON.stringify(module.dependencySpecifiers[0])}; bundle it into one module (svc-addon pack).`,
      });
      return;
    }
    await module.instantiate(context, () => {
      throw new Error('no imports');
    });
    cpuStart = isolate.cpuTime;
    failedInAddon = true;
    await module.evaluate({ timeout: remaining() });
    const out = (await run.apply(undefined, [module.namespace.derefInto(), msg.input], {
      result: { promise: true, copy: true },
      timeout: remaining(),
    })) as unknown;
    failedInAddon = false;
    if (String(out).length > MAX_RESULT) {
      r.finish({ t: 'result', id: msg.id, ok: false, code: 'ADDON_FAILED', message: 'The result is over 4 MiB of JSON.' });
      return;
    }
    const parsed = JSON.parse(String(out)) as {
      ok: boolean;
      value?: unknown;
      missing?: boolean;
      memory?: boolean;
      message?: string;
      stack?: string | null;
      refused?: unknown;
    };
    if (parsed.ok) r.finish({ t: 'result', id: msg.id, ok: true, value: JSON.stringify(parsed.value ?? null) });
    else if (parsed.refused !== undefined)
      r.finish({ t: 'result', id: msg.id, ok: false, code: 'ADDON_ACTION_REFUSED', refusal: JSON.stringify(parsed.refused) });
    else if (parsed.missing) r.finish({ t: 'result', id: msg.id, ok: false, code: 'ADDON_HANDLER_MISSING' });
    else if (parsed.memory) breakOff(r, 'ADDON_MEMORY_LIMIT');
    else r.finish({ t: 'result', id: msg.id, ok: false, code: 'ADDON_FAILED', message: String(parsed.message ?? '').slice(0, 500), ...stackOf(parsed.stack) });
  } catch (err) {
    const message = String((err as Error)?.message ?? '');
    if (r.breach) {
      /* answered already */
    } else if (isolate.isDisposed && /memory limit/i.test(message)) breakOff(r, 'ADDON_MEMORY_LIMIT');
    else if (isolate.isDisposed || /timed out/i.test(message)) breakOff(r, 'ADDON_TIMEOUT');
    else if (failedInAddon) {
      // Thrown by the module's top level: the add-on's own message, and its stack for the instance's log (never the caller).
      r.finish({ t: 'result', id: msg.id, ok: false, code: 'ADDON_FAILED', message: message.slice(0, 500), ...stackOf((err as Error)?.stack) });
    } else r.finish({ t: 'result', id: msg.id, ok: false, code: 'ADDON_FAILED' });
  } finally {
    clearInterval(watchdog);
    if (!r.done) r.finish({ t: 'result', id: msg.id, ok: false, code: 'ADDON_FAILED' });
    running.delete(msg.id);
    for (const ref of refs) {
      try {
        ref.release();
      } catch {
        /* isolate gone */
      }
    }
    try {
      context?.release();
    } catch {
      /* isolate gone */
    }
    // An isolate with host calls still unanswered could run code later (their continuations): not reused.
    const reusable = !r.breach && r.pending.size === 0 && !isolate.isDisposed && (result as ToParent | null)?.t === 'result';
    if (reusable) giveBack(key, entry);
    else dispose(entry);
    release(msg.addon.key);
  }
}

process.on('message', (m: ToChild) => {
  if (m.t === 'call') void handleCall(m);
  else if (m.t === 'host-result') {
    const r = running.get(m.id);
    const resolve = r?.pending.get(m.hc);
    if (resolve) {
      r!.pending.delete(m.hc);
      resolve(m.envelope);
    }
  } else if (m.t === 'stop') process.exit(0);
});
// The API process went away: nothing left to serve.
process.on('disconnect', () => process.exit(0));
send({ t: 'ready' });
