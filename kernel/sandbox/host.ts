/**
 * The sandbox host as the API process sees it (DESIGN D25): `call()` runs one hook or action of
 * an add-on in the supervised child process (sandbox-host-worker.ts), answers the child's host
 * calls with the HostCallHandler, and turns every way a call can end into a value or an AppError.
 * The API process itself never loads isolated-vm.
 *
 * One child runs every add-on (decisions AO37): it is started at boot when add-ons with code are
 * installed (`start()`), and when it dies, the calls in flight of the add-ons that did not cause
 * it are run once more on a new child, if they had asked the host for nothing but reads (a write,
 * a mail or a fetch may have happened: that call answers ADDON_CRASHED).
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Json } from '../../addons-sdk/src/define.js';
import type { Capability } from '../../addons-sdk/src/manifest/addon.js';
import { AppError } from '../errors.js';
import { withDeadline } from '../deadline.js';
import { forkWorker } from '../workers.js';
import './errors.js';
import { AddonFailureLog, blame, crashCause, crashed, resultError } from './failure-log.js';
import { HostCallGate } from './host-call-gate.js';
import type { CallMessage, CallTarget, HostCapability, ToChild, ToParent } from './protocol.js';

export type { Json };
export type { HostCapability };

export interface SandboxAddon {
  key: string;
  version: string;
  /** server.js: one ES module whose default export is `defineAddon({hooks, actions})`. */
  code: string;
  limits: { memoryMb: number; cpuMs: number };
  capabilities: readonly Capability[];
}

export interface SandboxCall {
  addon: SandboxAddon;
  target: CallTarget;
  context: { instance: string | null; settings: Record<string, Json>; connection: Record<string, string> | null };
  input: Json;
}

/**
 * Answers an add-on's host call (`ctx.db.list(...)` → `('db', 'list', [...])`). Throw an AppError
 * to fail the call inside the add-on with its code and message (anything else fails it with
 * HOST_ERROR and a generic message). `log` calls (`info`/`warn`/`error`, args `[message, fields]`)
 * are fire-and-forget: their result and errors are ignored.
 */
/**
 * `instance`: the app instance the call runs for (its context's), so the host answers for that
 * instance alone. `call.deadline` (epoch ms): when the add-on is answered ADDON_TIMEOUT whatever
 * the work does; work that can stop by then (a fetch, a SQLite statement) should.
 */
export type HostCallHandler = (
  addon: { key: string; version: string; instance: string | null },
  capability: HostCapability,
  method: string,
  args: Json[],
  call: { deadline: number },
) => Promise<Json>;

/** The part of pino's logger the sandbox uses (the kernel's logger fits). */
export interface SandboxLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface SandboxHostOptions {
  handleHostCall?: HostCallHandler;
  logger?: SandboxLogger;
  /** The clock of the failure log's windows (the kernel's, so tests can move it). */
  now?: () => number;
  /** Wall time of one call, default 5 s (D25). */
  wallMs?: number;
  /** Host calls per call, default 100 (D25). */
  maxHostCalls?: number;
}

export interface SandboxStats {
  /** The child's pid while it runs. */
  pid: number | null;
  /** Children started so far (the first one included). */
  starts: number;
  /** Children that ended without being asked to. */
  crashes: number;
  inFlight: number;
  calls: number;
  /** Calls run a second time because a crash that was not theirs took their child down. */
  retries: number;
}

const WORKER_ENTRY = new URL('./sandbox-host-worker.ts', import.meta.url);
/** How long past the wall limit the parent waits for the child's own answer before it gives up on the child. */
const PARENT_GRACE_MS = 2000;
/**
 * How long a cold start (the add-on's context made: isolate, bootstrap, module compiled) may take
 * on top of the wall time before the parent gives up on the child; the child starts the call's
 * wall time once the context exists and says so ('began').
 */
const SETUP_ALLOWANCE_MS = 10_000;
/** Code hashes the parent believes the child holds (the child keeps more). */
const SENT_CODES = 64;
/** An add-on that crashes the sandbox this many times within the window is paused (ADDON_PAUSED) for PAUSE_MS. */
const CRASH_LIMIT = 3;
const CRASH_WINDOW_MS = 60_000;
const PAUSE_MS = 60_000;
/** A call lost to another's crash runs again only with at least this much of its wall time left. */
const MIN_RETRY_MS = 250;
/** A child that lived this long is replaced at once when it dies (with add-ons installed); one that dies sooner, on the next call. */
const EAGER_RESTART_AFTER_MS = 1000;
/** Host calls that change nothing: a call that made only these (and logs) may run again after a crash (AO37). */
const READ_METHODS: ReadonlySet<string> = new Set(['db.list', 'db.get', 'kv.get']);
/** How long a new child may take to say it is ready. */
const READY_TIMEOUT_MS = 20_000;
/** A host call's answer, as JSON. */
const MAX_HOST_RESULT = 8 * 1024 * 1024;
/** An answer this long (JSON) waits for its own turn of the event loop before it is written to the child. */
const LARGE_ANSWER = 64 * 1024;
/** Bytes of answers an add-on's host calls get a millisecond (2 MiB a second), past a burst of 2 MiB. */
const ANSWER_BYTES_PER_MS = (2 * 1024 * 1024) / 1000;
const ANSWER_BURST = 2 * 1024 * 1024;
/** How long past its call's deadline a host call still running keeps its slot at most (work that never ends is a bug of ours). */
const SLOT_GRACE_MS = 30_000;
/** Host calls answered at once: per add-on, and in all (host-call-gate.ts), in each of the two pools. */
const HOST_CALLS_PER_ADDON = 4;
const HOST_CALLS_TOTAL = 8;
/**
 * Host calls that wait on another machine (a fetch runs up to its call's deadline, mail on the
 * mail server) have a pool of their own: add-ons calling a slow server hold those slots, never
 * the ones ctx.db and ctx.kv of every other add-on need.
 */
const NETWORK_CAPABILITIES: ReadonlySet<HostCapability> = new Set<HostCapability>(['fetch', 'mail.send']);

/** When a call's wall time ends (epoch ms); null until its first run has a child to run on. */
interface Wall {
  deadline: number | null;
}

interface Pending {
  msg: CallMessage;
  code: string;
  addon: { key: string; version: string; instance: string | null };
  /** When the call's wall time ends (epoch ms): its host calls are answered by then at the latest. */
  deadline: number;
  /** This is the call's first run: a crash that is not its own may run it again. */
  mayRetry: boolean;
  /** It asked the host for more than a read (db writes, kv.set/delete, mail, fetch): never run again. */
  effects: boolean;
  resolve: (v: Json) => void;
  reject: (e: AppError) => void;
  timer: NodeJS.Timeout;
  /** What the timer does when it fires: the child did not answer in time. */
  onTimeout: () => void;
  /** The call's wall time, shared by its runs (a run again after a crash has what is left). */
  wall: Wall;
  /** Bytes of `ctx.log` lines this call has written (LOG_BYTES_PER_CALL). */
  logBytes: number;
}

/**
 * What one call may write to the instance's log through `ctx.log` (decisions AO32): a public
 * action is anyone's to call, and 100 host calls of 16 KiB lines each are 1.6 MB per call.
 */
export const LOG_BYTES_PER_CALL = 64 * 1024;

interface Child {
  proc: ChildProcess;
  ready: Promise<void>;
  /** When it said it was ready (null before). */
  readyAt: number | null;
  sent: Map<string, true>;
  pending: Map<number, Pending>;
  exited: boolean;
  /** The add-on this child's end is put down to: the one whose isolate hit a fatal error (the child said so), or whose call the parent gave up on before killing it. */
  blamed?: string;
}

/** Values from the add-on side are parsed without `__proto__` keys. */
function parseJson(text: string): Json {
  return JSON.parse(text, (k, v: unknown) => (k === '__proto__' ? undefined : v)) as Json;
}

const HOST_TIMEOUT_MESSAGE = "The host call did not finish within the call's wall time.";
const HOST_TIMEOUT_ENVELOPE = JSON.stringify({ ok: false, code: 'ADDON_TIMEOUT', message: HOST_TIMEOUT_MESSAGE });

/** ADDON_CRASHED errors of calls that may run once more (a crash not of their doing, no effects yet). */
const retriable = new WeakSet<object>();

function hashCode(code: string): string {
  return createHash('sha256').update(code).digest('hex').slice(0, 32);
}

export class SandboxHost {
  private handler: HostCallHandler | null;
  private readonly logger: SandboxLogger | null;
  private readonly wallMs: number;
  private readonly maxHostCalls: number;
  private child: Child | null = null;
  private nextId = 1;
  private closed = false;
  private counters = { starts: 0, crashes: 0, calls: 0, retries: 0 };
  /** Set by start(): a child is kept running (replaced at once when it dies) for the installed add-ons. */
  private keepRunning = false;
  private readonly gate = new HostCallGate({ perAddon: HOST_CALLS_PER_ADDON, total: HOST_CALLS_TOTAL });
  private readonly networkGate = new HostCallGate({ perAddon: HOST_CALLS_PER_ADDON, total: HOST_CALLS_TOTAL });
  /** How requests that end in an add-on's failure are logged: warn, bounded per add-on (AO31). */
  readonly failureLog: AddonFailureLog;

  constructor(opts: SandboxHostOptions = {}) {
    this.failureLog = new AddonFailureLog(opts.now ?? Date.now);
    this.handler = opts.handleHostCall ?? null;
    this.logger = opts.logger ?? null;
    this.wallMs = opts.wallMs ?? 5000;
    this.maxHostCalls = opts.maxHostCalls ?? 100;
  }

  /** Set by whoever owns the add-ons (the add-ons plugin); until then host calls fail with HOST_ERROR. */
  setHostCallHandler(handler: HostCallHandler | null): void {
    this.handler = handler;
  }

  /**
   * Runs `target` of the add-on. Resolves with the function's result as JSON (`undefined` → null;
   * a hook's `{refuse}` is a result like any other). Rejects with AppError ADDON_FAILED (502,
   * `params.message`: the add-on's own message, ≤ 500 chars), ADDON_CRASHED (502),
   * ADDON_MEMORY_LIMIT (502), ADDON_TIMEOUT (504), ADDON_HOST_CALLS (429),
   * ADDON_HANDLER_MISSING (404) or ADDON_PAUSED (503, after it crashed the sandbox 3 times in a minute).
   */
  call(c: SandboxCall): Promise<Json> {
    return this.run(c).catch((err: unknown) => {
      blame(err, c.addon.key);
      throw err;
    });
  }

  /**
   * Starts the child now rather than on the first call (at boot, with add-ons installed) and keeps
   * one running from then on: a child that dies is replaced at once (unless it died young).
   */
  start(): void {
    if (this.closed) return;
    this.keepRunning = true;
    try {
      this.ensureChild();
    } catch (err) {
      this.logger?.error({ err: { message: (err as Error).message } }, 'could not start the add-on sandbox');
    }
  }

  /** Drops the warm contexts of these add-on versions (`key@version`) in the child: removed, disabled or upgraded ones. */
  forget(addons: readonly string[]): void {
    if (addons.length === 0 || !this.child || this.child.exited) return;
    this.post(this.child, { t: 'forget', addons: [...addons] });
  }

  private async run(c: SandboxCall): Promise<Json> {
    if (this.closed) throw new AppError('ADDON_CRASHED', { message: 'The add-on sandbox is shut down.' });
    this.counters.calls++;
    const pausedFor = this.pausedFor(`${c.addon.key}@${c.addon.version}`);
    if (pausedFor > 0) throw new AppError('ADDON_PAUSED', { params: { retryAfter: pausedFor }, headers: { 'retry-after': String(pausedFor) } });
    // The wall time starts once the child is there to run the call (its start is the platform's work).
    const wall: Wall = { deadline: null };
    try {
      return await this.attempt(c, wall, true);
    } catch (err) {
      // Lost to a crash that was not its own, before it asked for anything but reads: once more, within its wall time.
      if (!retriable.has(err as object) || this.closed || wall.deadline === null || wall.deadline - Date.now() < MIN_RETRY_MS) throw err;
      this.counters.retries++;
      return this.attempt(c, wall, false);
    }
  }

  private async attempt(c: SandboxCall, wall: Wall, mayRetry: boolean): Promise<Json> {
    const self = `${c.addon.key}@${c.addon.version}`;
    const lost = (blamed: string | null): AppError => {
      const err = crashed(blamed);
      if (mayRetry && blamed !== self) retriable.add(err);
      return err;
    };
    let child: Child;
    try {
      child = this.ensureChild();
    } catch (err) {
      this.logger?.error({ err: { message: (err as Error).message } }, 'could not start the add-on sandbox');
      throw new AppError('ADDON_CRASHED');
    }
    await child.ready;
    if (child.exited) throw lost(child.blamed ?? null);
    const deadline = (wall.deadline ??= Date.now() + this.wallMs);
    const hash = this.hashOf(c.addon.code);
    const id = this.nextId++;
    const wallMs = Math.max(1, deadline - Date.now());
    const msg: CallMessage = {
      t: 'call',
      id,
      addon: {
        key: c.addon.key,
        version: c.addon.version,
        hash,
        limits: { memoryMb: c.addon.limits.memoryMb, cpuMs: c.addon.limits.cpuMs },
        capabilities: [...c.addon.capabilities],
      },
      target: { kind: c.target.kind, name: c.target.name },
      context: JSON.stringify({ instance: c.context.instance, settings: c.context.settings, connection: c.context.connection }),
      input: JSON.stringify(c.input ?? null),
      wallMs,
      maxHostCalls: this.maxHostCalls,
    };
    return new Promise<Json>((resolve, reject) => {
      const onTimeout = () => {
        // The child did not answer in time: it is stuck, so it goes (others in flight run again or answer ADDON_CRASHED).
        const p = child.pending.get(id);
        if (!p) return;
        child.pending.delete(id);
        reject(new AppError('ADDON_TIMEOUT'));
        this.logger?.error({ addon: c.addon.key }, 'the add-on sandbox did not answer in time; restarting it');
        // The next call starts a new child at once rather than reach this one while it dies.
        if (this.child === child) this.child = null;
        child.blamed ??= self;
        child.proc.kill('SIGKILL');
      };
      // A cold start may first spend up to SETUP_ALLOWANCE_MS making the context ('began' re-arms it).
      const timer = setTimeout(onTimeout, wallMs + SETUP_ALLOWANCE_MS + PARENT_GRACE_MS);
      const pending: Pending = {
        msg,
        code: c.addon.code,
        addon: { key: c.addon.key, version: c.addon.version, instance: c.context.instance },
        deadline,
        mayRetry,
        effects: false,
        resolve,
        // A call that changed something through the host may not run twice: its crash is final.
        reject: (err) => reject(err.code === 'ADDON_CRASHED' && !pending.effects ? lost(crashCause(err)) : err),
        timer,
        onTimeout,
        wall,
        logBytes: 0,
      };
      child.pending.set(id, pending);
      this.sendCall(child, msg, c.addon.code);
    });
  }

  private readonly crashes = new Map<string, number[]>();

  private blame(addon: string): void {
    const now = Date.now();
    const times = (this.crashes.get(addon) ?? []).filter((t) => now - t < CRASH_WINDOW_MS);
    times.push(now);
    this.crashes.set(addon, times);
    if (times.length >= CRASH_LIMIT) this.logger?.error({ addon }, 'an add-on crashed the sandbox repeatedly; its calls are paused');
  }

  /** Seconds an add-on's calls stay refused after it crashed the sandbox CRASH_LIMIT times within CRASH_WINDOW_MS; 0 when not paused. */
  private pausedFor(addon: string): number {
    const times = this.crashes.get(addon);
    if (!times || times.length < CRASH_LIMIT) return 0;
    const left = times[times.length - 1]! + PAUSE_MS - Date.now();
    if (left <= 0) {
      this.crashes.delete(addon);
      return 0;
    }
    return Math.ceil(left / 1000);
  }

  stats(): SandboxStats {
    const child = this.child && !this.child.exited ? this.child : null;
    return {
      pid: child?.proc.pid ?? null,
      starts: this.counters.starts,
      crashes: this.counters.crashes,
      inFlight: child?.pending.size ?? 0,
      calls: this.counters.calls,
      retries: this.counters.retries,
    };
  }

  /** Stops the child (in-flight calls answer ADDON_CRASHED). A closed host refuses new calls. */
  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (!child || child.exited) return;
    await new Promise<void>((resolve) => {
      child.proc.once('exit', () => resolve());
      if (child.proc.connected) child.proc.send({ t: 'stop' } satisfies ToChild, (err) => err && child.proc.kill('SIGKILL'));
      else child.proc.kill('SIGKILL');
      setTimeout(() => child.proc.kill('SIGKILL'), 2000).unref();
    });
  }

  /** sha256 of the code, remembered for the last few codes (an add-on's code is the same string call after call). */
  private hashOf(code: string): string {
    let hash = this.hashes.get(code);
    if (hash === undefined) hash = hashCode(code);
    this.hashes.delete(code);
    this.hashes.set(code, hash);
    while (this.hashes.size > 32) this.hashes.delete(this.hashes.keys().next().value!);
    return hash;
  }
  private readonly hashes = new Map<string, string>();

  private sendCall(child: Child, msg: CallMessage, code: string): void {
    const withCode = !child.sent.has(msg.addon.hash);
    child.sent.delete(msg.addon.hash);
    child.sent.set(msg.addon.hash, true);
    while (child.sent.size > SENT_CODES) child.sent.delete(child.sent.keys().next().value!);
    this.post(child, withCode ? { ...msg, code } : msg);
  }

  private post(child: Child, m: ToChild): void {
    if (child.exited || !child.proc.connected) return;
    child.proc.send(m, (err) => {
      if (err) this.logger?.warn({ err: { message: err.message } }, 'could not write to the add-on sandbox');
    });
  }

  private ensureChild(): Child {
    if (this.child && !this.child.exited) return this.child;
    this.counters.starts++;
    const proc = forkWorker(WORKER_ENTRY, { execArgv: ['--no-node-snapshot'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'json' });
    let markReady!: () => void;
    const child: Child = { proc, ready: new Promise<void>((r) => (markReady = r)), readyAt: null, sent: new Map(), pending: new Map(), exited: false };
    this.child = child;
    const forward = (chunk: Buffer) => {
      const text = chunk.toString('utf8').trim();
      if (text) this.logger?.warn({ sandbox: text.slice(0, 2000) }, 'add-on sandbox output');
    };
    proc.stdout?.on('data', forward);
    proc.stderr?.on('data', forward);
    proc.on('message', (m: ToParent) => {
      if (m.t === 'ready') {
        child.readyAt = Date.now();
        markReady();
      } else this.onMessage(child, m);
    });
    // A child that neither says it is ready nor exits is stuck: it goes, and its callers get ADDON_CRASHED.
    const startup = setTimeout(() => {
      this.logger?.error({}, 'the add-on sandbox did not start in time');
      if (this.child === child) this.child = null;
      proc.kill('SIGKILL');
    }, READY_TIMEOUT_MS);
    startup.unref();
    void child.ready.then(() => clearTimeout(startup));
    proc.on('error', (err) => this.logger?.error({ err: { message: err.message } }, 'add-on sandbox process error'));
    proc.on('exit', (code, signal) => {
      child.exited = true;
      markReady();
      if (this.child === child) this.child = null;
      const expected = this.closed && code === 0;
      if (!expected) {
        this.counters.crashes++;
        // Only a guilty add-on is counted: never one that merely had calls in flight (an outside kill blames nobody).
        if (child.blamed) this.blame(child.blamed);
        this.logger?.error(
          { code, signal, inFlight: child.pending.size, blamed: child.blamed ?? null },
          'the add-on sandbox stopped; it restarts at once (calls of other add-ons that made only reads run again) or on the next call',
        );
      }
      const blamed = child.blamed ?? null;
      for (const p of child.pending.values()) {
        clearTimeout(p.timer);
        p.reject(crashed(blamed));
      }
      child.pending.clear();
      // With add-ons installed a child is kept running, so the next call does not wait for one; one that died young waits for a call.
      if (!expected && this.keepRunning && !this.closed && child.readyAt !== null && Date.now() - child.readyAt >= EAGER_RESTART_AFTER_MS)
        setImmediate(() => this.start());
    });
    // The child must not keep the API process alive by itself.
    proc.unref();
    (proc as unknown as { channel?: { unref(): void } }).channel?.unref();
    return child;
  }

  private onMessage(child: Child, m: ToParent): void {
    if (m.t === 'ready') return;
    if (m.t === 'fatal') {
      child.blamed ??= m.addon;
      return;
    }
    const p = child.pending.get(m.id);
    if (m.t === 'result') {
      if (!p) return;
      child.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.ok) {
        try {
          p.resolve(parseJson(m.value));
        } catch {
          p.reject(new AppError('ADDON_FAILED'));
        }
      } else p.reject(resultError(m));
    } else if (m.t === 'began') {
      if (!p) return;
      // The wall time starts now: the setup before it was the platform's.
      p.deadline += Math.max(0, m.setupMs);
      p.wall.deadline = p.deadline;
      clearTimeout(p.timer);
      p.timer = setTimeout(p.onTimeout, Math.max(1, p.deadline - Date.now()) + PARENT_GRACE_MS);
    } else if (m.t === 'need-code') {
      if (!p) return;
      child.sent.delete(p.msg.addon.hash);
      this.sendCall(child, p.msg, p.code);
    } else if (m.t === 'host') {
      if (!p) return;
      if (m.capability !== 'log' && !READ_METHODS.has(`${m.capability}.${m.method}`)) p.effects = true;
      void this.answerHostCall(child, p, m);
    }
  }

  private async answerHostCall(child: Child, p: Pending, m: Extract<ToParent, { t: 'host' }>): Promise<void> {
    let args: Json[];
    try {
      const parsed = parseJson(m.args);
      args = Array.isArray(parsed) ? parsed : [];
    } catch {
      args = [];
    }
    if (m.capability === 'log') {
      if (p.logBytes >= LOG_BYTES_PER_CALL) return;
      p.logBytes += m.args.length;
      if (p.logBytes > LOG_BYTES_PER_CALL) {
        // The line that goes over is not written; one marker says the rest of this call's lines are not.
        p.logBytes = LOG_BYTES_PER_CALL;
        this.logger?.warn({ addon: p.addon.key, limitBytes: LOG_BYTES_PER_CALL }, 'log truncated');
        return;
      }
      const [message, fields] = args;
      if (this.handler) {
        this.handler(p.addon, 'log', m.method, args, { deadline: p.deadline }).catch(() => undefined);
      } else {
        const level = m.method === 'error' ? 'error' : m.method === 'warn' ? 'warn' : 'info';
        this.logger?.[level]({ addon: p.addon.key, fields: fields ?? undefined }, String(message).slice(0, 2000));
      }
      return;
    }
    const addonId = `${p.addon.key}@${p.addon.version}`;
    const deadline = p.deadline;
    const live = () => child.pending.get(m.id) === p && Date.now() < deadline;
    const gate = NETWORK_CAPABILITIES.has(m.capability) ? this.networkGate : this.gate;
    const release = await gate.enter(addonId, live);
    // The call is over (answered, broken off, its child gone) or out of time: its host call does not run.
    if (!release) {
      if (child.pending.get(m.id) === p) this.post(child, { t: 'host-result', id: m.id, hc: m.hc, envelope: HOST_TIMEOUT_ENVELOPE });
      return;
    }
    // The slot is held until the work ends and its answer is written, even when the add-on was answered at the deadline.
    let workDone: Promise<unknown> = Promise.resolve();
    let overran = false;
    let envelope: string;
    try {
      if (!this.handler) throw new AppError('INTERNAL', { message: 'The host is not ready for add-on calls.' });
      const work = this.handler(p.addon, m.capability, m.method, args, { deadline });
      workDone = work.catch(() => undefined);
      const value = await withDeadline(work, Math.max(0, deadline - Date.now()), () => {
        overran = true;
        return new AppError('ADDON_TIMEOUT', { message: HOST_TIMEOUT_MESSAGE });
      });
      const json = JSON.stringify(value === undefined ? null : value);
      envelope =
        json.length > MAX_HOST_RESULT
          ? JSON.stringify({ ok: false, code: 'PAYLOAD_TOO_LARGE', message: 'The host call answer is over 8 MiB.' })
          : `{"ok":true,"value":${json}}`;
    } catch (err) {
      envelope =
        err instanceof AppError
          ? JSON.stringify({ ok: false, code: err.code, message: err.message })
          : JSON.stringify({ ok: false, code: 'HOST_ERROR', message: 'The host call failed.' });
      if (!(err instanceof AppError)) this.logger?.error({ addon: p.addon.key, capability: m.capability, method: m.method, err }, 'an add-on host call failed');
    }
    try {
      // Writing an answer to the channel takes this thread about 10 ms a MiB: an add-on's answers go at ANSWER_BYTES_PER_MS, each large one in its own turn of the event loop.
      const wait = this.pace(addonId, envelope.length);
      if (wait > 0 && Date.now() + wait >= deadline) envelope = HOST_TIMEOUT_ENVELOPE;
      else if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else if (envelope.length > LARGE_ANSWER) await new Promise((r) => setImmediate(r));
      if (child.pending.get(m.id) === p) this.post(child, { t: 'host-result', id: m.id, hc: m.hc, envelope });
    } finally {
      if (!overran) release();
      else {
        // Still running past the deadline: the slot waits for the work, and a host call that never ends (a bug of ours) gives it back SLOT_GRACE_MS later rather than never.
        const latest = setTimeout(release, SLOT_GRACE_MS);
        latest.unref();
        void workDone.then(() => (clearTimeout(latest), release()));
      }
    }
  }

  private readonly answered = new Map<string, { at: number; debt: number }>();

  /** Milliseconds an answer of `bytes` waits so that the add-on's answers stay within ANSWER_BYTES_PER_MS (after a burst); charges it. */
  private pace(addon: string, bytes: number): number {
    if (bytes <= LARGE_ANSWER) return 0;
    const now = Date.now();
    const b = this.answered.get(addon) ?? { at: now, debt: 0 };
    b.debt = Math.max(0, b.debt - (now - b.at) * ANSWER_BYTES_PER_MS);
    b.at = now;
    const wait = Math.max(0, Math.ceil((b.debt + bytes - ANSWER_BURST) / ANSWER_BYTES_PER_MS));
    b.debt += bytes;
    this.answered.set(addon, b);
    if (this.answered.size > 1000) for (const [k, v] of this.answered) if (v.debt - (now - v.at) * ANSWER_BYTES_PER_MS <= 0) this.answered.delete(k);
    return wait;
  }
}
