/** What the window needs of the data API's answers and of a column (structurally: api.ts's types fit). */
type Row = Record<string, unknown>;
export interface Page {
  rows: Row[];
  recordIds: Array<string | null>;
  nextCursor: string | null;
  total: number | null;
  totalExact: boolean;
}
interface Column {
  name: string;
  type: string;
}

/** Rows per request while scrolling; the first page is small so the grid shows quickly. */
export const FIRST_PAGE = 100;
export const PAGE = 200;
const MAX_LIMIT = 500;
/** A gap this small is filled by following the cursor; a larger one by seeking. */
const NEAR = 1000;
/** At most this many rows stay in memory; the ones farthest from the viewport go first. */
export const MAX_ROWS = 4000;

interface Segment {
  /** Index of its first row in the grid. */
  start: number;
  rows: Row[];
  ids: Array<string | null>;
  /** The API's nextCursor after the last row, null at the end of the rows. */
  next: string | null;
}

/** What a jump far down may seek on: the first sort key, when it is a number or a date. */
export interface SeekKey {
  column: Column;
  desc: boolean;
}

const NUMERIC = new Set(['integer', 'bigint', 'float', 'decimal']);
const TEMPORAL = new Set(['date', 'datetime']);

export function seekable(column: Column | undefined): boolean {
  return !!column && (NUMERIC.has(column.type) || TEMPORAL.has(column.type));
}

function toNumber(column: Column, v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (NUMERIC.has(column.type)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  if (typeof v !== 'string') return null;
  const text = column.type === 'date' ? `${v}T00:00:00Z` : /Z|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

function fromNumber(column: Column, n: number, like: unknown, desc: boolean): string {
  if (column.type === 'integer' || column.type === 'bigint') return String(desc ? Math.ceil(n) : Math.floor(n));
  if (NUMERIC.has(column.type)) return String(n);
  const iso = new Date(desc ? Math.ceil(n) : Math.floor(n)).toISOString();
  if (column.type === 'date') return iso.slice(0, 10);
  return typeof like === 'string' && like.endsWith('Z') ? iso : iso.slice(0, -1);
}

type Fetch = (query: string, signal: AbortSignal) => Promise<Page>;

/**
 * The rows of one view of a table, for a virtualised grid of any length: only the pages near
 * the viewport are fetched and kept (at most MAX_ROWS rows), always through keyset cursors.
 * A jump far away seeks instead of walking: the first sort key's value at that position is
 * estimated between the first and the last row's, and the page is asked for with a filter
 * `filter[key][gte]` (or `lte` descending) and the view's own sort, never an OFFSET. Rows then
 * continue from that page's cursor. Positions past a seek are estimates (exact when the key
 * is evenly spread, like a serial id); a segment that runs into the next one is joined to it.
 */
export class RowWindow {
  private segments: Segment[] = [];
  private inflight = new Map<string, AbortController>();
  private seekController: AbortController | null = null;
  private seekTarget: { from: number; limit: number } | null = null;
  private seeks = 0;
  private lastValue: unknown = undefined;
  private listeners = new Set<() => void>();
  private disposed = false;
  total = 0;
  totalExact = false;
  ready = false;
  error: unknown = null;
  version = 0;
  /** Changes whenever rows are loaded, let go of or removed (not when a loaded row is replaced): a selection of "every loaded row" holds while it is the same. */
  loadedVersion = 0;

  constructor(
    private readonly fetchPage: Fetch,
    /** The view's query string (sort, search, filters), without limit or cursor. */
    private readonly base: string,
    /** The same view with the sort reversed, to read the last row; null when seeking is off. */
    private readonly reversed: string | null,
    private readonly seek: SeekKey | null,
  ) {}

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  getVersion = () => this.version;

  private changed(loadedChanged = true): void {
    if (loadedChanged) this.loadedVersion++;
    this.version++;
    for (const l of this.listeners) l();
  }

  dispose(): void {
    this.disposed = true;
    for (const [key, c] of this.inflight) {
      // The prefetched first page is aborted a moment later, unless the window is loaded again at
      // once (StrictMode runs an effect, its cleanup and the effect again): then it is still wanted.
      if (key === 'prefetched') queueMicrotask(() => this.disposed && c.abort());
      else c.abort();
    }
    this.seekController?.abort();
  }

  private q(extra: string): string {
    return this.base ? `${this.base}&${extra}` : extra;
  }

  private async request(key: string, query: string, controller = new AbortController()): Promise<Page | null> {
    if (this.inflight.has(key)) return null;
    this.inflight.set(key, controller);
    try {
      const page = await this.fetchPage(query, controller.signal);
      return this.disposed || controller.signal.aborted ? null : page;
    } catch (err) {
      if (!controller.signal.aborted && !this.disposed) {
        this.error = err;
        this.changed();
      }
      return null;
    } finally {
      this.inflight.delete(key);
    }
  }

  /** The first page's query, for a caller that asks for it before the window exists. */
  static firstQuery(base: string): string {
    return base ? `${base}&limit=${FIRST_PAGE}` : `limit=${FIRST_PAGE}`;
  }

  /**
   * Reads the first page (again); `prefetched` is that page already asked for (its failure asks
   * again), `controller` its request's, aborted with the window (a cancelled search).
   */
  async load(prefetched?: Promise<Page>, controller?: AbortController): Promise<void> {
    this.error = null;
    // A window is loaded again after a dispose when React runs an effect twice (StrictMode).
    this.disposed = false;
    let page: Page | null;
    if (prefetched) {
      if (controller) this.inflight.set('prefetched', controller);
      try {
        page = await prefetched;
      } catch {
        page = null;
      } finally {
        if (controller && this.inflight.get('prefetched') === controller) this.inflight.delete('prefetched');
      }
      if (this.disposed) return;
    } else page = null;
    page ??= await this.request('first', this.q(`limit=${FIRST_PAGE}`));
    if (!page) return;
    this.segments = [{ start: 0, rows: page.rows, ids: page.recordIds, next: page.nextCursor }];
    this.total = page.nextCursor === null ? page.rows.length : Math.max(page.total ?? 0, page.rows.length + 1);
    this.totalExact = page.nextCursor === null || page.totalExact;
    this.ready = true;
    this.changed();
  }

  /** The row at grid index `i`, or undefined while it is not loaded. */
  rowAt(i: number): { row: Row; id: string | null } | undefined {
    const s = this.segmentAt(i);
    if (!s) return undefined;
    return { row: s.rows[i - s.start]!, id: s.ids[i - s.start] ?? null };
  }

  /** Every loaded row, with its index. */
  *loaded(): Generator<{ index: number; row: Row; id: string | null }> {
    for (const s of this.segments) for (let k = 0; k < s.rows.length; k++) yield { index: s.start + k, row: s.rows[k]!, id: s.ids[k] ?? null };
  }

  get loadedCount(): number {
    return this.segments.reduce((n, s) => n + s.rows.length, 0);
  }

  private segmentAt(i: number): Segment | undefined {
    return this.segments.find((s) => i >= s.start && i < s.start + s.rows.length);
  }

  /** Fetches what rows `from`..`to` still need, and lets go of rows far from them. */
  ensure(from: number, to: number): void {
    if (!this.ready || this.disposed) return;
    to = Math.min(to, this.total - 1);
    let i = Math.max(0, from);
    while (i <= to) {
      const here = this.segmentAt(i);
      if (here) {
        i = here.start + here.rows.length;
        continue;
      }
      const prev = [...this.segments].reverse().find((s) => s.start + s.rows.length <= i);
      const prevEnd = prev ? prev.start + prev.rows.length : 0;
      const gap = i - prevEnd;
      if (prev?.next && (gap <= NEAR || !this.seek)) void this.extend(prev, Math.min(MAX_LIMIT, Math.max(PAGE, to - prevEnd + 1 + PAGE / 2)));
      else if (this.seek) void this.seekTo(i, to);
      else if (!prev) void this.load();
      const after = this.segments.find((s) => s.start > i);
      i = after ? after.start : to + 1;
    }
    this.evict(from, to);
  }

  private async extend(seg: Segment, limit: number): Promise<void> {
    const cursor = seg.next!;
    const page = await this.request(`next:${cursor}`, this.q(`limit=${limit}&cursor=${encodeURIComponent(cursor)}`));
    if (!page || !this.segments.includes(seg) || seg.next !== cursor) return;
    this.append(seg, page);
  }

  /** Adds a page after `seg`, joining it to the next segment when they meet. */
  private append(seg: Segment, page: Page): void {
    const end = seg.start + seg.rows.length;
    const after = this.segments.find((s) => s.start >= end && s !== seg);
    const room = after ? after.start - end : Infinity;
    if (page.rows.length >= room && after) {
      // Met the next segment (a seek landed there): from here its rows take over.
      seg.rows.push(...page.rows.slice(0, room), ...after.rows);
      seg.ids.push(...page.recordIds.slice(0, room), ...after.ids);
      seg.next = after.next;
      this.segments = this.segments.filter((s) => s !== after);
    } else {
      seg.rows.push(...page.rows);
      seg.ids.push(...page.recordIds);
      seg.next = page.nextCursor;
      const newEnd = seg.start + seg.rows.length;
      if (!seg.next && !after) this.setTotal(newEnd);
      else if (newEnd >= this.total) this.setTotal(newEnd + 1);
    }
    this.changed();
  }

  private setTotal(n: number): void {
    this.total = n;
  }

  private async lastRowValue(signal: AbortSignal): Promise<unknown> {
    if (this.lastValue !== undefined) return this.lastValue;
    const page = await this.fetchPage(`${this.reversed ? `${this.reversed}&` : ''}limit=1`, signal);
    this.lastValue = page.rows[0]?.[this.seek!.column.name] ?? null;
    return this.lastValue;
  }

  private async seekTo(i: number, to: number): Promise<void> {
    const seek = this.seek!;
    const limit = Math.min(MAX_LIMIT, Math.max(PAGE, to - i + 1 + PAGE / 2));
    // A seek under way that will cover this place is waited for; any other is cancelled: only the latest jump matters.
    const current = this.seekTarget;
    if (current && this.seekController && !this.seekController.signal.aborted && i >= current.from && to < current.from + current.limit) return;
    this.seekController?.abort();
    const controller = new AbortController();
    this.seekController = controller;
    this.seekTarget = { from: i, limit };
    try {
      const firstRow = this.segments.find((s) => s.start === 0)?.rows[0];
      const first = firstRow ? toNumber(seek.column, firstRow[seek.column.name]) : null;
      const lastRaw = await this.lastRowValue(controller.signal);
      const last = toNumber(seek.column, lastRaw);
      if (controller.signal.aborted) return;
      if (first === null || last === null || this.total < 2) {
        // Nothing to estimate with (NULLs at an end): walk from the nearest segment instead.
        const prev = [...this.segments].reverse().find((s) => s.start + s.rows.length <= i && s.next);
        if (prev) void this.extend(prev, MAX_LIMIT);
        return;
      }
      const value = fromNumber(seek.column, first + ((last - first) * i) / (this.total - 1), lastRaw, seek.desc);
      const filter = `filter[${encodeURIComponent(seek.column.name)}][${seek.desc ? 'lte' : 'gte'}]=${encodeURIComponent(value)}`;
      const page = await this.request(`seek:${i}:${++this.seeks}`, this.q(`${filter}&limit=${limit}`), controller);
      if (!page || this.segmentAt(i)) return;
      const seg: Segment = { start: i, rows: [], ids: [], next: null };
      this.segments = [...this.segments, seg].sort((a, b) => a.start - b.start);
      this.append(seg, page);
      if (page.rows.length === 0) this.segments = this.segments.filter((s) => s !== seg);
    } catch (err) {
      if (!controller.signal.aborted) {
        this.error = err;
        this.changed();
      }
    } finally {
      if (this.seekController === controller) this.seekTarget = null;
    }
  }

  /** Keeps at most MAX_ROWS rows: whole segments farthest from the viewport go first, then the far start of a long one. */
  private evict(from: number, to: number): void {
    let count = this.loadedCount;
    if (count <= MAX_ROWS) return;
    const distance = (s: Segment) => (s.start > to ? s.start - to : s.start + s.rows.length < from ? from - (s.start + s.rows.length) : 0);
    // Whole segments far from the viewport first (one just behind it is still being extended).
    const far = [...this.segments].filter((s) => distance(s) > NEAR).sort((a, b) => distance(b) - distance(a));
    for (const s of far) {
      if (count <= MAX_ROWS) break;
      this.segments = this.segments.filter((x) => x !== s);
      count -= s.rows.length;
    }
    // Then the rows well above the viewport in the nearest segment.
    const near = [...this.segments].sort((a, b) => distance(a) - distance(b))[0];
    if (count > MAX_ROWS && near) {
      const cut = Math.min(count - MAX_ROWS, Math.max(0, from - PAGE - near.start), near.rows.length - 1);
      if (cut > 0) {
        near.rows.splice(0, cut);
        near.ids.splice(0, cut);
        near.start += cut;
      }
    }
    this.changed();
  }

  /** Puts a row as the server now answers it in place of the loaded one with this id. */
  replace(recordId: string, row: Row, newId = recordId): void {
    for (const s of this.segments) {
      const k = s.ids.indexOf(recordId);
      if (k >= 0) {
        s.rows[k] = row;
        s.ids[k] = newId;
      }
    }
    this.changed(newId !== recordId);
  }

  /** Takes deleted rows out; the rows after them move up. */
  remove(recordIds: readonly string[]): void {
    const gone = new Set(recordIds);
    let removed = 0;
    for (const s of this.segments) {
      s.start -= removed;
      for (let k = s.ids.length - 1; k >= 0; k--) {
        if (gone.has(s.ids[k] ?? '')) {
          s.rows.splice(k, 1);
          s.ids.splice(k, 1);
          removed++;
        }
      }
    }
    this.total = Math.max(0, this.total - removed);
    this.changed();
  }

  has(recordId: string): boolean {
    return this.segments.some((s) => s.ids.includes(recordId));
  }
}
