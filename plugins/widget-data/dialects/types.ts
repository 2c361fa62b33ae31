import type { RawBuilder } from 'kysely';
import type { AnyDb } from '../../../engine/rows/index.js';
import type { EffectiveColumn } from '../../schema/provides.js';
import type { BucketUnit } from '../schemas.js';
import type { OffsetSpan, Zone } from '../zones.js';

export type Sql = RawBuilder<unknown>;

/** A bucket to draw: the column, the unit, the zone; SQLite also gets the zone's offsets over the rows' span. */
export interface BucketSpec {
  column: EffectiveColumn;
  unit: BucketUnit;
  zone: Zone;
  spans: OffsetSpan[] | null;
}

/** What the widget statements need of a dialect, one small file each (decisions WD2). */
export interface WidgetDialect {
  /** The bucket's local start as text `YYYY-MM-DD HH:MM:SS`, truncated in the zone by the database. */
  bucket(spec: BucketSpec): Sql;
  /** `a` equals `b`, NULL equal to NULL. */
  same(a: Sql, b: Sql): Sql;
  /** A condition every row passes until the deadline, then the statement fails (SQLite's thread); null where the database keeps the deadline. */
  alive(deadline: number): Sql | null;
  /** SQLite only: the zone's offsets must be worked out first (it has no zones). */
  readonly needsSpans: boolean;
}

/** Runs one SELECT under a deadline; the timeout, a refusal and a lost database come back as the dialect throws them. */
export type Execute = (db: AnyDb, statement: Sql, deadline: number) => Promise<Record<string, unknown>[]>;
