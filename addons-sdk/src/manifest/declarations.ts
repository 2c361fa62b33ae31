import { z } from 'zod';

/**
 * The declarative parts a first-party plugin (`definePlugin`) and an add-on (`addon.json`)
 * share (DESIGN §2, D23): permissions, event kinds, error codes and tables with portable column
 * types. The kernel imports these; there is no second definition. The engine (engine/) takes
 * tables by shape (DdlTable) and spells the portable types itself.
 */
export const PERMISSION_NAME = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;
export const EVENT_KIND = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;
export const ERROR_CODE = /^[A-Z][A-Z0-9_]+$/;

export const permissionDeclarationSchema = z.strictObject({
  name: z.string().regex(PERMISSION_NAME, 'permission names look like namespace.action'),
  label: z.string().min(1).max(200),
  description: z.string().min(1).max(2000),
  /** Built-in roles besides `admin` (which holds everything) that hold this permission. */
  roles: z.array(z.enum(['editor', 'viewer'])).optional(),
});
export type PermissionDeclaration = z.infer<typeof permissionDeclarationSchema>;

export const eventKindField = z.string().regex(EVENT_KIND, 'event kinds look like namespace.happened').max(100);

export const errorCodeDeclarationSchema = z.strictObject({
  status: z.number().int().min(400).max(599),
  message: z.string().min(1).max(2000),
});
export type ErrorCodeDeclaration = z.infer<typeof errorCodeDeclarationSchema>;
export const errorCodeField = z.string().regex(ERROR_CODE, 'error codes are UPPER_SNAKE_CASE');

/**
 * The small portable type set every dialect maps onto (introspection, schema import, add-on tables).
 * The instance's engine spells the same list (engine/schema/model.ts) and loads no SDK code; a
 * test keeps the two equal.
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

/** The types an add-on may declare: every portable type but `other` (which has no DDL). */
export const DECLARABLE_TYPES = PORTABLE_TYPES.filter((t): t is Exclude<PortableType, 'other'> => t !== 'other');

/** Table and column names of an add-on: lower snake_case, so every dialect takes them unquoted-alike. */
export const SQL_NAME = /^[a-z][a-z0-9_]{0,47}$/;
const sqlName = z.string().regex(SQL_NAME, 'names are lower snake_case: a letter, then letters, digits or _ (at most 48)');

const defaultValue = z.union([z.string().max(1000), z.number(), z.boolean(), z.null(), z.literal('now()')]);

/**
 * The column every app table carries (D28 instances): which instance of the app a row belongs
 * to. The instance adds it; an author may not declare it, but may index it.
 */
export const INSTANCE_COLUMN = 'svc_instance';
/** The id of the instance an app has before (and besides) the ones the operator names. */
export const DEFAULT_INSTANCE = 'default';

export const tableColumnSchema = z
  .strictObject({
    name: sqlName,
    type: z.enum(DECLARABLE_TYPES),
    nullable: z.boolean().default(true),
    /** A literal default; the string `now()` means the time of the insert (date, datetime, time only). */
    default: defaultValue.optional(),
    /** `string` only: the maximum length (default 255). */
    maxLength: z.number().int().min(1).max(65_535).optional(),
    /** `decimal` only (default 12, 2). */
    precision: z.number().int().min(1).max(38).optional(),
    scale: z.number().int().min(0).max(38).optional(),
    /** `enum` only: the allowed values. */
    values: z.array(z.string().min(1).max(100)).min(1).max(200).optional(),
    /** `integer` or `bigint` primary key only: the database numbers new rows. */
    autoIncrement: z.boolean().default(false),
    unique: z.boolean().default(false),
  })
  .superRefine((c, ctx) => {
    if (c.maxLength !== undefined && c.type !== 'string') ctx.addIssue({ code: 'custom', path: ['maxLength'], message: 'maxLength is for string columns.' });
    if ((c.precision !== undefined || c.scale !== undefined) && c.type !== 'decimal')
      ctx.addIssue({ code: 'custom', path: ['precision'], message: 'precision and scale are for decimal columns.' });
    if ((c.type === 'enum') !== (c.values !== undefined))
      ctx.addIssue({ code: 'custom', path: ['values'], message: 'An enum column lists its values, and only an enum column does.' });
    if (c.autoIncrement && c.type !== 'integer' && c.type !== 'bigint')
      ctx.addIssue({ code: 'custom', path: ['autoIncrement'], message: 'Only integer and bigint columns are numbered by the database.' });
    if (c.default === 'now()' && !['date', 'datetime', 'time'].includes(c.type))
      ctx.addIssue({ code: 'custom', path: ['default'], message: 'now() is a default of date, datetime and time columns.' });
  });
export type TableColumnDeclaration = z.infer<typeof tableColumnSchema>;

export const tableDeclarationSchema = z
  .strictObject({
    name: sqlName,
    columns: z.array(tableColumnSchema).min(1).max(200),
    primaryKey: z.array(sqlName).min(1).max(8),
    indexes: z
      .array(z.strictObject({ columns: z.array(sqlName).min(1).max(8), unique: z.boolean().default(false) }))
      .max(32)
      .default([]),
  })
  .superRefine((t, ctx) => {
    const names = new Set<string>();
    t.columns.forEach((c, i) => {
      if (names.has(c.name)) ctx.addIssue({ code: 'custom', path: ['columns', i, 'name'], message: `Column ${c.name} is declared twice.` });
      names.add(c.name);
      if (c.name === INSTANCE_COLUMN)
        ctx.addIssue({
          code: 'custom',
          path: ['columns', i, 'name'],
          message: `${INSTANCE_COLUMN} is the instance column every app table gets; do not declare it.`,
        });
      if (c.autoIncrement && !(t.primaryKey.length === 1 && t.primaryKey[0] === c.name))
        ctx.addIssue({ code: 'custom', path: ['columns', i, 'autoIncrement'], message: 'Only a one-column primary key is numbered by the database.' });
    });
    t.primaryKey.forEach((p, i) => {
      if (!names.has(p)) ctx.addIssue({ code: 'custom', path: ['primaryKey', i], message: `The primary key names ${p}, which is not a column.` });
    });
    t.indexes.forEach((x, i) =>
      x.columns.forEach((c, j) => {
        if (!names.has(c) && c !== INSTANCE_COLUMN)
          ctx.addIssue({ code: 'custom', path: ['indexes', i, 'columns', j], message: `The index names ${c}, which is not a column.` });
      }),
    );
  });
export type TableDeclaration = z.infer<typeof tableDeclarationSchema>;
