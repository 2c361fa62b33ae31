import type { RawBuilder } from 'kysely';
import type { AnyDb } from './dialect.js';

/**
 * Compiled statement texts, kept per shape. Building a list query out of kysely's `sql`
 * fragments and compiling it cost more than running it through the driver (the public-list
 * bench), while the text only depends on the statement's shape: which columns, which filter
 * operators, how many `in` values, where the NULLs are. The values themselves always stay
 * parameters; the text never contains one.
 */

/** Stands for the n-th value of a statement while its text is built (a parameter like any other to kysely). */
export class Slot {
  constructor(readonly index: number) {}
}

/** What a built statement embeds where a value goes: the value itself, or a Slot for it. */
export type Embed = (value: unknown) => unknown;
export const asValue: Embed = (value) => value;

interface Cached {
  sql: string;
  /** Per parameter: the index of its value, or -1 - (index into `constants`) for one the dialect put there itself. */
  order: number[];
  constants: unknown[];
}

const ids = new WeakMap<object, number>();
let lastId = 0;

/** A number for an object (a table, a column) for shape keys: the same object, the same number. */
export function idOf(o: object): number {
  let id = ids.get(o);
  if (id === undefined) ids.set(o, (id = ++lastId));
  return id;
}

/** For tests: texts reused, and texts whose embedded values differed from the values given (a bug: then nothing is kept). */
export const statementStats = { built: 0, reused: 0, mismatched: 0 };

/** Shapes per owner; a caller varying filters can only fill this many before it starts over. */
const MAX_SHAPES = 256;
const byOwner = new WeakMap<object, Map<string, Cached>>();

/** A statement's text and its parameters (kysely's CompiledQuery.raw makes one of these runnable). */
export interface BoundStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** The text was kept and has run before: worth preparing on the server (a driver may name it). */
  readonly repeated: boolean;
}

function bind(cached: Cached, values: readonly unknown[], repeated: boolean): BoundStatement {
  const params = new Array<unknown>(cached.order.length);
  for (let i = 0; i < params.length; i++) {
    const at = cached.order[i]!;
    params[i] = at >= 0 ? values[at] : cached.constants[-1 - at];
  }
  return { sql: cached.sql, parameters: params, repeated };
}

/**
 * The statement of `build` with `values` as its parameters. `build` must embed exactly
 * `values`, in order, through `embed` (one call per value; a Slot may then be used more than
 * once). It runs on the first request of each shape only; when what it embedded differs from
 * `values`, the statement runs as built and nothing is kept, so a wrong `key` can cost speed,
 * never another statement's text.
 */
export function statement(
  db: AnyDb,
  owner: object,
  key: string | null,
  values: readonly unknown[],
  build: (embed: Embed) => RawBuilder<unknown>,
): BoundStatement {
  let shapes = byOwner.get(owner);
  const hit = key === null ? undefined : shapes?.get(key);
  if (hit) {
    statementStats.reused++;
    return bind(hit, values, true);
  }
  statementStats.built++;
  const embedded: unknown[] = [];
  const compiled = build((value) => new Slot(embedded.push(value) - 1)).compile(db);
  const constants: unknown[] = [];
  const order = compiled.parameters.map((p) => (p instanceof Slot ? p.index : -1 - (constants.push(p) - 1)));
  const cached: Cached = { sql: compiled.sql, order, constants };
  const same = embedded.length === values.length && embedded.every((v, i) => Object.is(v, values[i]));
  if (!same) {
    statementStats.mismatched++;
    return bind(cached, embedded, false);
  }
  if (key !== null) {
    if (!shapes) byOwner.set(owner, (shapes = new Map()));
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, cached);
  }
  return bind(cached, values, false);
}
