/**
 * The sandbox host child process (DESIGN D25): forked by host.ts with `--no-node-snapshot`, it
 * runs add-on code in isolated-vm isolates and talks to the API process over IPC only. An
 * isolate that takes the whole process down (a V8 OOM abort) takes only this process; the
 * parent answers 502 ADDON_CRASHED (or runs a bystander's call again, host.ts) and forks a new one.
 *
 * Warm contexts (decisions AO36): an isolate of one add-on version holds one context in which the
 * bootstrap (bootstrap.ts) ran and the add-on's module is instantiated and evaluated once. A call
 * takes such a warm entry from the pool (or makes one), calls the bootstrap's `setup` with
 * references of its own (so its `ctx` is its own and dies with the call), runs the handler, and
 * gives the entry back, unless the call failed, hit a limit, left host calls unanswered, or the
 * entry served MAX_USES calls. One entry runs one call at a time; an add-on version gets up to
 * perAddon(memoryMb) entries at once. An entry never serves another add-on or another version
 * (the pool key holds key, version, code hash and memory limit).
 */
import ivm from 'isolated-vm';
import { BOOTSTRAP_SOURCE } from './bootstrap.js';
import { HOST_METHODS, type CallMessage, type FailureCode, type HostCapability, type ToChild, type ToParent } from './protocol.js';

/** Idle warm entries kept in all (least recently used goes first); per add-on version, as many as it may run at once. */
const IDLE_TOTAL = 16;
/** A warm context is dropped after this many calls: module state is not kept forever, and a slow leak is bounded twice (also by memoryMb). */
const MAX_USES = 1000;
/**
 * Calls running at once: in all, and per add-on version as many as fit ADDON_ACTIVE_MB of its
 * memory limit (64 MiB → 4, 128 MiB → 2), at most ACTIVE_PER_ADDON_MAX; the memory limits of
 * the running calls together stay within ACTIVE_MB. More wait (their wall time runs while they wait).
 */
const MAX_ACTIVE = 8;
const ACTIVE_PER_ADDON_MAX = 4;
const ADDON_ACTIVE_MB = 256;
const ACTIVE_MB = 768;
/** Code kept by hash; the parent remembers fewer, so what it thinks we have, we have. */
const CODE_CACHE = 128;
const WATCHDOG_MS = 5;
/** Arguments of one host call, as JSON. */
const MAX_HOST_ARGS = 1024 * 1024;
const MAX_LOG_JSON = 16 * 1024;
/** A call's result, as JSON. */
const MAX_RESULT = 4 * 1024 * 1024;

function perAddon(memoryMb: number): number {
  return Math.max(1, Math.min(ACTIVE_PER_ADDON_MAX, Math.floor(ADDON_ACTIVE_MB / memoryMb)));
}

/** An isolate of one add-on version with its warm context: the bootstrap's `setup` and the evaluated module. */
interface WarmEntry {
  isolate: ivm.Isolate;
  context: ivm.Context;
  setup: ivm.Reference;
  module: ivm.Module;
  uses: number;
  /** forgetEpoch when it was made: a later `forget` of its add-on version drops it as it comes back. */
  epoch: number;
}

interface CodeEntry {
  code: string;
  cachedData?: ivm.ExternalCopy<ArrayBuffer>;
}

interface Running {
  msg: CallMessage;
  isolate: ivm.Isolate;
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
const idle = new Map<string, WarmEntry[]>();
/** Pool keys, least recently used first, one per idle entry. */
const idleOrder: string[] = [];
const running = new Map<number, Running>();
let active = 0;
let activeMb = 0;
const activeBy = new Map<string, number>();
const waiting: { addon: string; memoryMb: number; go: () => void }[] = [];
let forgetEpoch = 0;
/** `key@version` → the forgetEpoch of its last `forget`. */
const forgotten = new Map<string, number>();

function addonId(m: CallMessage): string {
  return `${m.addon.key}@${m.addon.version}`;
}

function poolKey(m: CallMessage): string {
  return `${addonId(m)}#${m.addon.hash}/${m.addon.limits.memoryMb}`;
}

function dispose(entry: { isolate: ivm.Isolate }): void {
  try {
    if (!entry.isolate.isDisposed) entry.isolate.dispose();
  } catch {
    /* already gone */
  }
}

function takeIdle(key: string): WarmEntry | null {
  const list = idle.get(key);
  const entry = list?.pop();
  if (!entry) return null;
  if (list!.length === 0) idle.delete(key);
  idleOrder.splice(idleOrder.lastIndexOf(key), 1);
  return entry;
}

function giveBack(key: string, id: string, memoryMb: number, entry: WarmEntry): void {
  const list = idle.get(key) ?? [];
  if (list.length >= perAddon(memoryMb) || entry.uses >= MAX_USES || entry.isolate.isDisposed || entry.epoch < (forgotten.get(id) ?? -1)) return dispose(entry);
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

/** Drops every idle entry of these add-on versions (removed, disabled, upgraded); running ones are dropped as they come back. */
function forget(ids: readonly string[]): void {
  forgetEpoch++;
  for (const id of ids) forgotten.set(id, forgetEpoch);
  const prefixes = ids.map((id) => `${id}#`);
  for (const key of [...idle.keys()]) {
    if (!prefixes.some((p) => key.startsWith(p))) continue;
    for (const entry of idle.get(key)!) dispose(entry);
    idle.delete(key);
    for (let i = idleOrder.length - 1; i >= 0; i--) if (idleOrder[i] === key) idleOrder.splice(i, 1);
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

/** Waits for a slot: MAX_ACTIVE and ACTIVE_MB in all, perAddon per add-on version, so one add-on's flood leaves room for the others. */
async function slot(addon: string, memoryMb: number): Promise<void> {
  if (fits(addon, memoryMb)) return take(addon, memoryMb);
  await new Promise<void>((resolve) => waiting.push({ addon, memoryMb, go: resolve }));
}

function fits(addon: string, memoryMb: number): boolean {
  return active < MAX_ACTIVE && (active === 0 || activeMb + memoryMb <= ACTIVE_MB) && (activeBy.get(addon) ?? 0) < perAddon(memoryMb);
}

function take(addon: string, memoryMb: number): void {
  active++;
  activeMb += memoryMb;
  activeBy.set(addon, (activeBy.get(addon) ?? 0) + 1);
}

function release(addon: string, memoryMb: number): void {
  active--;
  activeMb -= memoryMb;
  const left = (activeBy.get(addon) ?? 1) - 1;
  if (left === 0) activeBy.delete(addon);
  else activeBy.set(addon, left);
  // The first waiting call whose add-on is under its share goes next.
  for (let i = 0; i < waiting.length && active < MAX_ACTIVE; i++) {
    const w = waiting[i]!;
    if (!fits(w.addon, w.memoryMb)) continue;
    waiting.splice(i--, 1);
    take(w.addon, w.memoryMb);
    w.go();
  }
}

/** Breaks off a call at a limit: its isolate is disposed (whatever runs in it stops) and not pooled. */
function breakOff(r: Running, code: FailureCode): void {
  if (r.done || r.breach) return;
  r.breach = code;
  dispose(r);
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

/** Thrown by warmUp for a module that cannot run here (it imports): its message is the add-on's to read. */
class ModuleRefused extends Error {}

/**
 * A new isolate of the add-on version with its warm context: the bootstrap run, the module
 * compiled (from the V8 code cache when there is one), instantiated and evaluated. Evaluation is
 * the add-on's own code, so it runs under the first call's limits (`addonCode` marks where it starts).
 */
async function warmUp(msg: CallMessage, code: CodeEntry, r: Running, addonCode: () => void, remaining: () => number): Promise<WarmEntry> {
  const { isolate } = r;
  const context = await isolate.createContext();
  const bootstrap = await isolate.compileScript(BOOTSTRAP_SOURCE, { filename: 'svc:bootstrap.js' });
  const setup = (await bootstrap.run(context, { reference: true, timeout: 1000 })) as ivm.Reference;
  bootstrap.release();
  const module = await isolate.compileModule(code.code, {
    filename: `addon:${msg.addon.key}@${msg.addon.version}/server.js`,
    ...(code.cachedData ? { cachedData: code.cachedData } : { produceCachedData: true }),
  });
  const produced = (module as ivm.Module & { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
  if (!code.cachedData && produced) code.cachedData = produced;
  if (module.dependencySpecifiers.length > 0)
    throw new ModuleRefused(`server.js imports ${JSON.stringify(module.dependencySpecifiers[0])}; bundle it into one module (svc-addon pack).`);
  await module.instantiate(context, () => {
    throw new Error('no imports');
  });
  addonCode();
  await module.evaluate({ timeout: remaining() });
  return { isolate, context, setup, module, uses: 0, epoch: forgetEpoch };
}

async function handleCall(msg: CallMessage): Promise<void> {
  // When the call's wall time started; a cold start moves it to when the add-on's code begins.
  let started = Date.now();
  let code = codes.get(msg.addon.hash);
  if (msg.code !== undefined && !code) remember(msg.addon.hash, (code = { code: msg.code }));
  if (!code) return send({ t: 'need-code', id: msg.id });
  remember(msg.addon.hash, code);

  const id = addonId(msg);
  const memoryMb = msg.addon.limits.memoryMb;
  await slot(id, memoryMb);
  if (Date.now() - started > msg.wallMs) {
    // Its whole wall time went waiting for a slot.
    release(id, memoryMb);
    return send({ t: 'result', id: msg.id, ok: false, code: 'ADDON_TIMEOUT' });
  }
  const key = poolKey(msg);
  let result: ToParent | null = null;
  let entry: WarmEntry | null = takeIdle(key);
  // A cold start: the isolate, bootstrap and module are the platform's work, outside the wall time.
  const setupFrom = entry ? null : Date.now();
  let isolate: ivm.Isolate;
  try {
    isolate = entry?.isolate ?? new ivm.Isolate({ memoryLimit: memoryMb, onCatastrophicError: () => fatal(id) });
  } catch {
    release(id, memoryMb);
    return send({ t: 'result', id: msg.id, ok: false, code: 'ADDON_FAILED' });
  }
  const r: Running = {
    msg,
    isolate,
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
  let cpuStart: bigint | null = null;
  const watchdog = setInterval(() => {
    if (r.done || isolate.isDisposed) return;
    // Setting up (cpuStart unset on a cold start): the parent's setup allowance bounds it, not the wall time.
    if (cpuStart === null && setupFrom !== null) return;
    const cpuMs = cpuStart === null ? 0 : Number(isolate.cpuTime - cpuStart) / 1e6;
    if (cpuMs > msg.addon.limits.cpuMs || Date.now() - started > msg.wallMs) breakOff(r, 'ADDON_TIMEOUT');
  }, WATCHDOG_MS);
  // This call's own references: its ctx reaches the host through them alone, and they are released when it ends.
  const refs: { release(): void }[] = [];
  let failedInAddon = false;
  const addonCode = () => {
    if (cpuStart === null && setupFrom !== null) {
      const setupMs = Date.now() - setupFrom;
      started += setupMs;
      send({ t: 'began', id: msg.id, setupMs });
    }
    cpuStart ??= isolate.cpuTime;
    failedInAddon = true;
  };
  const remaining = () => Math.max(1, msg.wallMs - (Date.now() - started));
  try {
    if (!entry) {
      try {
        entry = await warmUp(msg, code, r, addonCode, remaining);
      } catch (err) {
        if (err instanceof ModuleRefused) {
          r.finish({ t: 'result', id: msg.id, ok: false, code: 'ADDON_FAILED', message: err.message });
          return;
        }
        throw err;
      }
    }
    entry.uses++;
    failedInAddon = false;
    const hostRef = new ivm.Reference(hostCallback(r));
    const logRef = new ivm.Reference(logCallback(r));
    refs.push(hostRef, logRef);
    const meta = JSON.stringify({
      ...JSON.parse(msg.context),
      addon: { key: msg.addon.key, version: msg.addon.version },
      capabilities: msg.addon.capabilities,
      target: msg.target,
    });
    // Building the ctx can run the add-on's code (a setter it put on Object.prototype in an earlier
    // call): it counts against the call's CPU time, and it runs on the isolate's thread, never
    // blocking this one (applySync would stall every other add-on's calls while it ran).
    addonCode();
    const run = (await entry.setup.apply(undefined, [hostRef, logRef, meta], { result: { reference: true }, timeout: remaining() })) as ivm.Reference;
    refs.push(run);
    const out = (await run.apply(undefined, [entry.module.namespace.derefInto(), msg.input], {
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
    // Kept warm only after a call that ended well (a value, a refusal by ctx.refuse, or a handler it does not have): a
    // context whose code threw may hold half-made state, one that hit a limit is disposed, and one
    // with host calls still unanswered could run code later (their continuations).
    const answer = result as ToParent | null;
    const clean = answer?.t === 'result' && (answer.ok || answer.code === 'ADDON_HANDLER_MISSING' || answer.code === 'ADDON_ACTION_REFUSED');
    if (entry && clean && !r.breach && r.pending.size === 0 && !isolate.isDisposed) giveBack(key, id, memoryMb, entry);
    else dispose(r);
    release(id, memoryMb);
  }
}

process.on('message', (m: ToChild) => {
  if (m.t === 'call') void handleCall(m);
  else if (m.t === 'forget') forget(m.addons);
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
