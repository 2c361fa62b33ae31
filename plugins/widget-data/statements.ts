import type { CompiledQuery } from 'kysely';
import type { EffectiveTable } from '../schema/provides.js';

/** Statements kept for one table at most; the oldest go first. */
export const STATEMENTS_PER_TABLE = 200;

/**
 * Compiled widget statements by the plan they were built for (decisions WD8). A dashboard asks
 * the same few statements again and again, and building one (the filters' SQL, kysely's tree)
 * and compiling it cost more of a cheap widget's time than anything else in the route. A
 * statement is the same text and parameters for the same plan key, so it is compiled once.
 *
 * They are kept by the effective table object the plan was checked against: the schema plugin
 * makes new table objects when the schema or its overrides change (on this replica or, through
 * `schema.changed`, another), so the old table's statements are never used again and go with it.
 * The key holds the rest (the dialect, the metric, columns, group, bucket and zone, every filter
 * and its values), as the result cache's does (WD6).
 */
export class StatementMemo {
  private readonly byTable = new WeakMap<EffectiveTable, Map<string, CompiledQuery>>();

  constructor(private readonly maxPerTable = STATEMENTS_PER_TABLE) {}

  /** The statement kept for (`table`, `key`), or `compile`'s, kept. */
  get(table: EffectiveTable, key: string, compile: () => CompiledQuery): CompiledQuery {
    let kept = this.byTable.get(table);
    if (!kept) this.byTable.set(table, (kept = new Map()));
    let statement = kept.get(key);
    if (statement === undefined) {
      statement = compile();
      if (kept.size >= this.maxPerTable) kept.delete(kept.keys().next().value!);
      kept.set(key, statement);
    }
    return statement;
  }
}
