import type { Kysely } from 'kysely';
import { type KernelTables, type MetaDb, type Migration, rerunnableColumn, rerunnableIndex } from '../../kernel/api.js';

/**
 * An upload is a file in the kernel's file store (IM8) and a row of what its scan found (format,
 * columns with guessed types, a sample). An import names an upload and how its columns land in a
 * table; its row names the attempt whose error report is read (`report_key`, IM9).
 */
export type ImportsTables = {
  import_uploads: {
    id: string;
    file_name: string;
    format: 'csv' | 'json' | 'xlsx';
    size: number;
    /** JSON: [{name, type, empty}] in file order. */
    columns: string;
    /** JSON: the first rows as records. */
    sample: string;
    row_count: number;
    /** Lines the scan could not read (malformed CSV, JSON that is no object). */
    problems: number;
    /** CSV only: the field delimiter found. */
    delimiter: string | null;
    owner_type: 'user' | 'apiKey';
    owner_id: string;
    created_at: number;
    expires_at: number;
  };
  imports: {
    id: string;
    upload_id: string;
    connection_id: string;
    table_ref: string;
    /** JSON {sourceColumn: tableColumn | null}. */
    mapping: string;
    mode: 'insert' | 'upsert';
    upsert_key: string | null;
    atomic: number;
    batch_size: number;
    dry_run: number;
    /** created | queued | running | succeeded | failed | cancelled */
    state: string;
    job_id: string | null;
    total: number;
    inserted: number;
    updated: number;
    refused: number;
    /** Batch mode: the last source line whose batch committed, and the report's length then (a retry resumes there). */
    checkpoint_line: number;
    report_bytes: number;
    /** The file-store prefix of the error report to read: the report of the attempt that last held the job (IM9); null before IM9. */
    report_key: string | null;
    error_code: string | null;
    error_message: string | null;
    owner_type: 'user' | 'apiKey';
    owner_id: string;
    created_at: number;
    started_at: number | null;
    finished_at: number | null;
  };
};

export type UploadRow = ImportsTables['import_uploads'];
export type ImportRow = ImportsTables['imports'];
export type ImportsDb = Kysely<KernelTables & ImportsTables>;
export const importsDb = (db: MetaDb): ImportsDb => db.withTables<ImportsTables>();

// `ifNotExists`: MySQL commits DDL implicitly, so a migration there must survive a rerun (K10).
export const importsMigrations: Migration[] = [
  {
    name: '0001_imports',
    async up(db) {
      await db.schema
        .createTable('import_uploads')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('file_name', 'varchar(255)', (c) => c.notNull())
        .addColumn('format', 'varchar(8)', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('columns', 'text', (c) => c.notNull())
        .addColumn('sample', 'text', (c) => c.notNull())
        .addColumn('row_count', 'bigint', (c) => c.notNull())
        .addColumn('problems', 'bigint', (c) => c.notNull())
        .addColumn('delimiter', 'varchar(4)')
        .addColumn('owner_type', 'varchar(8)', (c) => c.notNull())
        .addColumn('owner_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('imports')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('upload_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('connection_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('table_ref', 'varchar(255)', (c) => c.notNull())
        .addColumn('mapping', 'text', (c) => c.notNull())
        .addColumn('mode', 'varchar(8)', (c) => c.notNull())
        .addColumn('upsert_key', 'text')
        .addColumn('atomic', 'integer', (c) => c.notNull())
        .addColumn('batch_size', 'integer', (c) => c.notNull())
        .addColumn('dry_run', 'integer', (c) => c.notNull())
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('job_id', 'varchar(32)')
        .addColumn('total', 'bigint', (c) => c.notNull())
        .addColumn('inserted', 'bigint', (c) => c.notNull())
        .addColumn('updated', 'bigint', (c) => c.notNull())
        .addColumn('refused', 'bigint', (c) => c.notNull())
        .addColumn('checkpoint_line', 'bigint', (c) => c.notNull())
        .addColumn('report_bytes', 'bigint', (c) => c.notNull())
        .addColumn('error_code', 'varchar(100)')
        .addColumn('error_message', 'text')
        .addColumn('owner_type', 'varchar(8)', (c) => c.notNull())
        .addColumn('owner_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('started_at', 'bigint')
        .addColumn('finished_at', 'bigint')
        .execute();
      await rerunnableIndex(db.schema.createIndex('imports_owner').on('imports').columns(['owner_type', 'owner_id', 'id']).execute());
      await rerunnableIndex(db.schema.createIndex('import_uploads_expiry').on('import_uploads').column('expires_at').execute());
    },
  },
  {
    name: '0002_imports_report_key',
    async up(db) {
      // IM9: each attempt writes a report of its own; the row names the one to read. Imports run
      // before have none and read the segments stored directly under their prefix. A rerun on
      // MySQL meets the column it added (1060).
      await rerunnableColumn(db.schema.alterTable('imports').addColumn('report_key', 'varchar(255)').execute());
    },
  },
];
