import { defineServiceRef } from '../../kernel/api.js';
import type { ColumnOverride, Overrides, SchemaProblem, TableOverride } from './overrides.js';
import type { EffectiveColumn, EffectiveModel, EffectiveTable } from './effective.js';

export type { ColumnOverride, EffectiveColumn, EffectiveModel, EffectiveTable, Overrides, SchemaProblem, TableOverride };

/**
 * A connection's schema as the rest of the platform should treat it: the latest snapshot with
 * the operator's overrides applied. Each table carries `ref` (how routes and grants name it)
 * and `display`; each column carries `display` ({label, hidden, personal, secret, format}).
 */
export interface EffectiveSchema {
  connectionId: string;
  snapshotId: string;
  /** The snapshot's content hash; changes exactly when the structure does. */
  hash: string;
  model: EffectiveModel;
  overrides: Overrides;
  /** Overrides naming a table or column the snapshot no longer has. */
  problems: SchemaProblem[];
}

/**
 * What the schema plugin provides (`kernel.plugin(schemaRef)` from a plugin
 * that requires 'schema').
 */
export interface SchemaProvides {
  /** 404 NOT_FOUND for an unknown connection, 404 SCHEMA_NOT_INTROSPECTED before the first introspection. */
  effective(connectionId: string): Promise<EffectiveSchema>;
  /** `effective(connectionId)` when it is at hand without reading (every /data request asks); undefined otherwise. */
  effectiveNow(connectionId: string): EffectiveSchema | undefined;
  /** One table of the effective schema by its ref, or null when the snapshot has no such table. */
  table(connectionId: string, ref: string): Promise<EffectiveTable | null>;
  /** Reads the connection again now and stores a snapshot when its structure changed (after DDL of our own, e.g. an add-on's tables). */
  introspect(connectionId: string): Promise<unknown>;
}

/** `kernel.plugin(schemaRef)` from a plugin that requires 'schema'. */
export const schemaRef = defineServiceRef<SchemaProvides>('schema');
