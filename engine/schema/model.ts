import { z } from 'zod';

/**
 * One description of a database schema, shared by introspection (what a connection holds),
 * snapshots and diffs, and schema import (what a DDL, Prisma or Drizzle file declares).
 * Published as the schema-import IR.
 */

/**
 * The small portable type set every dialect maps onto (introspection, schema import, rows,
 * declared tables). The add-on SDK spells the same list for authors, since it is a package of
 * its own; test/boundaries.test.ts keeps the two equal.
 */
export const PORTABLE_TYPES = [
  'string',
  'text',
  'integer',
  'bigint',
  'decimal',
  'float',
  'boolean',
  'date',
  'datetime',
  'time',
  'json',
  'uuid',
  'binary',
  'enum',
  'other',
] as const;
export const portableType = z.enum(PORTABLE_TYPES);
export type PortableType = z.infer<typeof portableType>;

export const REFERENTIAL_ACTIONS = ['cascade', 'restrict', 'set null', 'set default', 'no action'] as const;
export const referentialAction = z.enum(REFERENTIAL_ACTIONS);
export type ReferentialAction = z.infer<typeof referentialAction>;

export const columnSchema = z
  .strictObject({
    name: z.string(),
    /** The small portable type set every dialect maps onto. */
    type: portableType,
    /** The type as the database (or file) spells it, lower case, e.g. `character varying(255)`. */
    nativeType: z.string(),
    nullable: z.boolean(),
    /** The default as an SQL expression (`'draft'`, `0`, `now()`), or null. */
    default: z.string().nullable(),
    /** Filled by the database: auto-increment, serial or identity. */
    autoIncrement: z.boolean(),
    /** A generated (computed) column and its expression. */
    generated: z.strictObject({ kind: z.enum(['stored', 'virtual']), expression: z.string().nullable() }).nullable(),
    maxLength: z.number().int().nullable(),
    precision: z.number().int().nullable(),
    scale: z.number().int().nullable(),
    /** Allowed values of an enum column (a PostgreSQL enum type, a MySQL ENUM, a Prisma enum). */
    enumValues: z.array(z.string()).nullable(),
    comment: z.string().nullable(),
  })
  .meta({ id: 'SchemaColumn' });
export type Column = z.infer<typeof columnSchema>;

export const foreignKeySchema = z
  .strictObject({
    name: z.string().nullable(),
    columns: z.array(z.string()).min(1),
    referencedSchema: z.string().nullable(),
    referencedTable: z.string(),
    referencedColumns: z.array(z.string()).min(1),
    onDelete: referentialAction,
    onUpdate: referentialAction,
  })
  .meta({ id: 'SchemaForeignKey' });
export type ForeignKey = z.infer<typeof foreignKeySchema>;

export const indexSchema = z
  .strictObject({ name: z.string().nullable(), columns: z.array(z.string()).min(1), unique: z.boolean() })
  .meta({ id: 'SchemaIndex' });
export type Index = z.infer<typeof indexSchema>;

export const tableSchema = z
  .strictObject({
    /** The database schema (PostgreSQL namespace); null where the dialect has none (SQLite, MySQL: the database). */
    schema: z.string().nullable(),
    name: z.string(),
    kind: z.enum(['table', 'view']),
    columns: z.array(columnSchema),
    primaryKey: z.strictObject({ name: z.string().nullable(), columns: z.array(z.string()).min(1) }).nullable(),
    foreignKeys: z.array(foreignKeySchema),
    /** Unique constraints (and unique indexes that are not the primary key). */
    uniques: z.array(z.strictObject({ name: z.string().nullable(), columns: z.array(z.string()).min(1) })),
    indexes: z.array(indexSchema),
    checks: z.array(z.strictObject({ name: z.string().nullable(), expression: z.string() })),
    /** The planner's estimate, not an exact count; null when unknown or a view. */
    rowEstimate: z.number().nullable(),
    comment: z.string().nullable(),
  })
  .meta({ id: 'SchemaTable' });
export type Table = z.infer<typeof tableSchema>;

export const schemaModelSchema = z
  .strictObject({
    dialect: z.enum(['postgres', 'mysql', 'sqlite']).nullable(),
    tables: z.array(tableSchema),
    /** Named enum types (PostgreSQL, Prisma); MySQL and SQLite enums live on their columns. */
    enums: z.array(z.strictObject({ schema: z.string().nullable(), name: z.string(), values: z.array(z.string()) })),
  })
  .meta({ id: 'SchemaModel' });
export type SchemaModel = z.infer<typeof schemaModelSchema>;

/** Tables sorted by schema and name, columns kept in their declared order: a stable form to hash and diff. */
export function canonicalModel(model: SchemaModel): SchemaModel {
  const byName = <T extends { name: string | null }>(a: T, b: T) => (a.name ?? '').localeCompare(b.name ?? '');
  return {
    dialect: model.dialect,
    tables: [...model.tables]
      .sort((a, b) => (a.schema ?? '').localeCompare(b.schema ?? '') || a.name.localeCompare(b.name))
      .map((t) => ({
        ...t,
        foreignKeys: [...t.foreignKeys].sort((a, b) => a.columns.join(',').localeCompare(b.columns.join(',')) || byName(a, b)),
        uniques: [...t.uniques].sort((a, b) => a.columns.join(',').localeCompare(b.columns.join(',')) || byName(a, b)),
        indexes: [...t.indexes].sort((a, b) => byName(a, b) || a.columns.join(',').localeCompare(b.columns.join(','))),
        checks: [...t.checks].sort((a, b) => a.expression.localeCompare(b.expression)),
      })),
    enums: [...model.enums].sort((a, b) => (a.schema ?? '').localeCompare(b.schema ?? '') || a.name.localeCompare(b.name)),
  };
}
