import { AppError } from '../errors.js';

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
