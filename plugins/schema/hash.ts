import { createHash } from 'node:crypto';
import { canonicalModel, type SchemaModel } from '../../engine/schema/model.js';

/** JSON with object keys sorted, so the same model always gives the same text. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * The canonical model without the planner's row estimates: they move with every insert and
 * ANALYZE, and a snapshot records structure, so they must neither change the hash nor count
 * as a difference.
 */
export function structuralModel(model: SchemaModel): SchemaModel {
  const canonical = canonicalModel(model);
  return { ...canonical, tables: canonical.tables.map((t) => ({ ...t, rowEstimate: null })) };
}

/** sha256 (hex) of the structural model's stable JSON. */
export function modelHash(model: SchemaModel): string {
  return createHash('sha256')
    .update(stableJson(structuralModel(model)))
    .digest('hex');
}
