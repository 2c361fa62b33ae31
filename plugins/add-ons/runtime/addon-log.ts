import type { AppError, Json, Logger } from '../../../kernel/api.js';
import { mapStack, readSourceMap, type SourceLine } from './source-map.js';

type MapConsumer = ReturnType<typeof readSourceMap>;

/** What an add-on may put in the instance's log a minute (decisions AO35): its ctx.log lines, in lines and bytes. */
export const ADDON_LOG_LINES_PER_MINUTE = 300;
export const ADDON_LOG_BYTES_PER_MINUTE = 256 * 1024;
/** Lines a minute of its failures with their stack, and of its refused outbound fetches (each a visitor may cause). */
export const ADDON_FAILURE_DETAIL_LINES = 10;
const WINDOW_MS = 60_000;
const MAX_MESSAGE = 2000;
/** Keys of a log line that are the instance's: a field of the add-on by one of these names is written as `_<name>`. */
const RESERVED = new Set(['addon', 'version', 'level', 'msg', 'time', 'pid', 'hostname', 'reqId', 'err', 'source', 'v']);
/** A secret shorter than this is not looked for (it would blank ordinary words). */
const MIN_SECRET = 4;
/** Parsed maps kept (one per add-on version; each up to ~20 MiB of heap at MAX_MAPPINGS_CHARS). */
const SOURCE_MAPS_KEPT = 4;

interface Window {
  start: number;
  lines: number;
  bytes: number;
  dropped: number;
}

/**
 * Per add-on budgets of lines (and bytes) a minute. What goes over is counted, and said in one
 * line when the add-on next writes in a later minute (a minute with nothing over says nothing).
 */
class PerMinute {
  private readonly windows = new Map<string, Window>();
  constructor(
    private readonly now: () => number,
    private readonly lines: number,
    private readonly bytes: number,
    private readonly tell: (addon: string, dropped: number) => void,
  ) {}

  take(addon: string, bytes = 0): boolean {
    const at = this.now();
    let w = this.windows.get(addon);
    if (!w || at - w.start >= WINDOW_MS) {
      if (w && w.dropped > 0) this.tell(addon, w.dropped);
      // One entry per add-on, not per caller: as small as the installed add-ons.
      w = { start: at, lines: 0, bytes: 0, dropped: 0 };
      this.windows.set(addon, w);
    }
    if (w.lines >= this.lines || w.bytes + bytes > this.bytes) {
      w.dropped++;
      return false;
    }
    w.lines++;
    w.bytes += bytes;
    return true;
  }
}

/** Replaces every secret (and its JSON-escaped form, as a stack or message may quote it) in `text` with `[secret]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    out = out.split(s).join('[secret]');
    const escaped = JSON.stringify(s).slice(1, -1);
    if (escaped !== s) out = out.split(escaped).join('[secret]');
  }
  return out;
}

/** A JSON value with every secret inside its strings (keys included) replaced by `[secret]`. */
function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k, secrets), redactValue(v, secrets)]));
  return value;
}

/** The values an add-on's log lines must never show: its secret settings' and its connection's (D25, D29). */
export function secretsOf(secretNames: readonly string[], settings: Record<string, Json>, connection: Record<string, string> | null): string[] {
  const values = [...secretNames.map((n) => settings[n]), ...Object.values(connection ?? {})];
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length >= MIN_SECRET))].sort((a, b) => b.length - a.length);
}

export interface AddonRef {
  key: string;
  version: string;
}

/**
 * What add-ons write into the instance's log (decisions AO35), each line `{addon, version, …}`:
 * their `ctx.log` lines with the fields at the top level; each failure of their code at error
 * level with its message, its stack mapped through the package's source map and the line of
 * source it points at; each outbound fetch refused, with the host and why. Secrets of the add-on
 * never appear; every kind is bounded a minute per add-on.
 */
export class AddonLog {
  private readonly lines: PerMinute;
  private readonly failures: PerMinute;
  private readonly outbound: PerMinute;
  private readonly maps = new Map<string, Promise<MapConsumer>>();

  constructor(
    private readonly log: Logger,
    now: () => number,
    /** The package's server.js.map and server.js. */
    private readonly files: { sourceMap(key: string, version: string): Promise<string | null>; code(key: string, version: string): string | null },
  ) {
    const tell = (what: string) => (addon: string, dropped: number) =>
      log.warn({ addon, dropped, windowSeconds: WINDOW_MS / 1000 }, `add-on ${what} not logged (over the per-minute bound)`);
    this.lines = new PerMinute(now, ADDON_LOG_LINES_PER_MINUTE, ADDON_LOG_BYTES_PER_MINUTE, tell('log lines'));
    this.failures = new PerMinute(now, ADDON_FAILURE_DETAIL_LINES, Infinity, tell('failures'));
    this.outbound = new PerMinute(now, ADDON_FAILURE_DETAIL_LINES, Infinity, tell('refused fetches'));
  }

  /** One `ctx.log` line: `{addon, version, ...fields}` at its level, the message as `msg`. */
  line(addon: AddonRef, level: 'info' | 'warn' | 'error', message: unknown, fields: unknown, secrets: readonly string[]): void {
    const msg = redact(String(message).slice(0, MAX_MESSAGE), secrets);
    let own: Record<string, unknown> = {};
    if (fields !== null && typeof fields === 'object' && !Array.isArray(fields)) {
      for (const [k, v] of Object.entries(redactValue(fields, secrets) as Record<string, unknown>)) own[RESERVED.has(k) ? `_${k}` : k] = v;
    } else if (fields !== null && fields !== undefined) own = { _fields: redactValue(fields, secrets) };
    const bytes = msg.length + JSON.stringify(own).length;
    if (!this.lines.take(addon.key, bytes)) return;
    this.log[level]({ ...own, addon: addon.key, version: addon.version }, msg);
  }

  /** An ADDON_FAILED of the add-on's code: the error level, with the stack mapped and the line it points at (no secret; the caller is not told any of it). */
  async failure(
    addon: AddonRef,
    call: { kind: string; name: string },
    detail: { message: string; stack: string | null },
    secrets: readonly string[],
  ): Promise<void> {
    if (!this.failures.take(addon.key)) return;
    // A stack with no frame of server.js (a thrown string) needs no map.
    const map = detail.stack?.includes('/server.js:') ? await this.sourceMap(addon) : null;
    let mapped: { stack: string | null; source: SourceLine | null } = { stack: detail.stack, source: null };
    try {
      if (detail.stack) mapped = mapStack(detail.stack, map, this.files.code(addon.key, addon.version));
    } catch {
      // A map that does not fit the code: the stack as the sandbox wrote it.
    }
    const source = mapped.source ? { ...mapped.source, text: redact(mapped.source.text, secrets) } : null;
    this.log.error(
      {
        addon: addon.key,
        version: addon.version,
        call,
        // Prototype-less, so that the logger's error serializer adds no `type` of its own.
        err: Object.assign(Object.create(null) as object, {
          message: redact(detail.message, secrets),
          stack: mapped.stack === null ? '' : redact(mapped.stack, secrets),
        }),
        source,
      },
      source
        ? `add-on ${addon.key} failed: ${redact(detail.message, secrets)} (${source.file}:${source.line}:${source.column})`
        : `add-on ${addon.key} failed: ${redact(detail.message, secrets)}`,
    );
  }

  /** A `ctx.fetch` the outbound rules refused: which host, and why. */
  refusedFetch(addon: AddonRef, err: AppError): void {
    if (!this.outbound.take(addon.key)) return;
    this.log.warn({ addon: addon.key, version: addon.version, code: err.code, ...(err.params ?? {}) }, err.message);
  }

  private sourceMap(addon: AddonRef): Promise<MapConsumer> {
    const id = `${addon.key}@${addon.version}`;
    let map = this.maps.get(id);
    if (!map) {
      map = this.files.sourceMap(addon.key, addon.version).then(readSourceMap, () => null);
      this.maps.set(id, map);
      while (this.maps.size > SOURCE_MAPS_KEPT) this.maps.delete(this.maps.keys().next().value!);
    }
    return map;
  }
}
