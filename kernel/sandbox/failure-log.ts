import { AppError, errorCodes } from '../errors.js';
import type { ResultMessage } from './protocol.js';

/**
 * The failures of an add-on call that are the add-on's doing, not the instance's: a request that
 * ends in one of them is logged by `AddonFailureLog`, not as the instance's own 5xx (decisions AO31).
 */
export const ADDON_CALL_FAILURES: ReadonlySet<string> = new Set([
  'ADDON_FAILED',
  'ADDON_CRASHED',
  'ADDON_MEMORY_LIMIT',
  'ADDON_TIMEOUT',
  'ADDON_PAUSED',
  'ADDON_HOST_CALLS',
  'ADDON_FETCH_FAILED',
]);

/** Which add-on a failure of the sandbox belongs to; set by the sandbox host as the call rejects. */
const blamed = new WeakMap<object, string>();

export function blame(err: unknown, addon: string): void {
  if (typeof err === 'object' && err !== null && !blamed.has(err)) blamed.set(err, addon);
}

export function blamedAddon(err: unknown): string | null {
  return typeof err === 'object' && err !== null ? (blamed.get(err) ?? null) : null;
}

/** Whom an ADDON_CRASHED was put down to (S11): `key@version` of the add-on whose isolate took the child down, or null for nobody. */
const crashCauses = new WeakMap<object, string | null>();

/** ADDON_CRASHED, remembering whom the child's end was put down to. */
export function crashed(cause: string | null): AppError {
  const err = new AppError('ADDON_CRASHED');
  crashCauses.set(err, cause);
  return err;
}

/** `key@version` an ADDON_CRASHED was put down to; null for nobody (an outside kill) or an error that is no crash. */
export function crashCause(err: unknown): string | null {
  return typeof err === 'object' && err !== null ? (crashCauses.get(err) ?? null) : null;
}

/** What the add-on's code threw (ADDON_FAILED): its message and the isolate's stack, for the instance's log only. */
export interface AddonFailureDetail {
  message: string;
  stack: string | null;
}

const failureDetails = new WeakMap<object, AddonFailureDetail>();

/** The thrown error's message and stack behind an ADDON_FAILED (null for any other error, or one without them). */
export function addonFailureDetail(err: unknown): AddonFailureDetail | null {
  return typeof err === 'object' && err !== null ? (failureDetails.get(err) ?? null) : null;
}

/**
 * An action's `ctx.refuse(status, code, message, params)`: answered with the add-on's own status
 * and code in the standard envelope. The code is the add-on's, not one the instance registers, so
 * it is set here past AppError's registry (which knows ADDON_ACTION_REFUSED alone).
 */
export class AddonRefusal extends AppError {
  constructor(status: number, code: string, message: string, params: Record<string, unknown> | undefined) {
    super('ADDON_ACTION_REFUSED', { message, ...(params ? { params } : {}) });
    Object.defineProperty(this, 'code', { value: code, enumerable: true });
    Object.defineProperty(this, 'status', { value: status, enumerable: true });
  }
}

/** Codes an add-on may not refuse with: the instance's own, and the prefixes of codes it may add (a client branching on them must never meet an add-on's). */
const RESERVED_PREFIX = /^(ADDON|PUBLIC|AUTH|BRIDGE)_/;
const REFUSE_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/** The refusal the child reported, checked again here (the isolate is not trusted): an AddonRefusal, or ADDON_FAILED saying what is wrong with it. */
function refusalError(json: string): AppError {
  const bad = (why: string) => new AppError('ADDON_FAILED', { params: { message: `ctx.refuse: ${why}` } });
  let r: { status?: unknown; code?: unknown; message?: unknown; params?: unknown };
  try {
    r = JSON.parse(json, (k, v: unknown) => (k === '__proto__' ? undefined : v)) as typeof r;
  } catch {
    return bad('unreadable refusal');
  }
  const { status, code, message, params } = r ?? {};
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499 || status === 401 || status === 407)
    return bad('status is a 4xx other than 401 and 407');
  if (typeof code !== 'string' || !REFUSE_CODE.test(code)) return bad('code is 2-64 of A-Z, 0-9 and _, starting with a letter');
  if (RESERVED_PREFIX.test(code) || errorCodes().has(code))
    return bad(`${code} is the instance's (its codes and those starting ADDON_, PUBLIC_, AUTH_, BRIDGE_ are reserved)`);
  if (typeof message !== 'string' || !message) return bad('message is a non-empty string');
  if (params !== null && params !== undefined && (typeof params !== 'object' || Array.isArray(params) || JSON.stringify(params).length > 4096))
    return bad('params is a plain object of at most 4 KiB of JSON');
  return new AddonRefusal(status, code, message.slice(0, 500), (params ?? undefined) as Record<string, unknown> | undefined);
}

/** The error a failed call answers with, from the child's result: a refusal, ADDON_FAILED (its detail kept for the log), or the limit it hit. */
export function resultError(m: Extract<ResultMessage, { ok: false }>): AppError {
  if (m.code === 'ADDON_ACTION_REFUSED') return refusalError(m.refusal);
  const err = new AppError(m.code, m.code === 'ADDON_FAILED' && m.message ? { params: { message: m.message } } : {});
  if (m.code === 'ADDON_FAILED' && (m.message || m.stack)) failureDetails.set(err, { message: m.message ?? '', stack: m.stack ?? null });
  return err;
}

export interface FailureLogger {
  warn(obj: object, msg?: string): void;
}

/** Lines per add-on per window; what goes over is counted and told in one line when the window ends. */
export const ADDON_FAILURE_LINES = 10;
const WINDOW_MS = 60_000;

interface Window {
  start: number;
  written: number;
  suppressed: number;
}

/**
 * A public action that times out can be called by any visitor: logged at error level with a
 * stack each time, it would let anyone fill the instance's log. Each add-on gets at most
 * `perWindow` warn lines a minute, without a stack; the count of the others is written once as
 * the next window begins (at its first failure: a window with no failure writes nothing).
 */
export class AddonFailureLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly now: () => number,
    private readonly perWindow = ADDON_FAILURE_LINES,
  ) {}

  /** True when `err` is an add-on call's failure (and was logged here, or counted). */
  write(log: FailureLogger, err: AppError, fields: Record<string, unknown>, original: unknown = err): boolean {
    if (!ADDON_CALL_FAILURES.has(err.code)) return false;
    const addon = blamedAddon(original) ?? blamedAddon(err) ?? 'unknown';
    const at = this.now();
    let w = this.windows.get(addon);
    if (!w || at - w.start >= WINDOW_MS) {
      if (w && w.suppressed > 0)
        log.warn({ addon, suppressed: w.suppressed, windowSeconds: WINDOW_MS / 1000 }, 'add-on call failures not logged (over the per-minute lines)');
      // A map of add-ons, not of callers: it stays as small as the installed add-ons.
      w = { start: at, written: 0, suppressed: 0 };
      this.windows.set(addon, w);
    }
    if (w.written >= this.perWindow) {
      w.suppressed++;
      return true;
    }
    w.written++;
    // The add-on's own message (ADDON_FAILED) is bounded by the sandbox; no stack: the stack is ours, not the add-on's.
    log.warn(
      { ...fields, addon, code: err.code, status: err.status, message: err.message, ...(err.params ? { params: err.params } : {}) },
      'add-on call failed',
    );
    return true;
  }
}
