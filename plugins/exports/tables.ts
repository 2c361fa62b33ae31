import type { Kysely } from 'kysely';
import { type KernelTables, type MetaDb, type Migration, rerunnableColumn, rerunnableIndex } from '../../kernel/api.js';

/**
 * One row per export. The file lives in the kernel's file store under `file_key`; the row outlives it
 * (state `expired`) so a late download answers 410 rather than 404.
 */
export type ExportsTables = {
  exports: {
    id: string;
    connection_id: string;
    table_ref: string;
    format: 'csv' | 'jsonl' | 'xlsx';
    /** JSON array of column names, in file order. */
    columns: string;
    /** JSON of the filter as asked; null = every row. */
    filter: string | null;
    /** JSON `{text, columns}`: the search as asked and the readable text columns it looks in (EX9); null = none. */
    search: string | null;
    sort: string | null;
    /** 1: CSV text cells that a spreadsheet would run as a formula carry a leading apostrophe (EX3). */
    formula_safe: number;
    /** queued | running | ready | failed | cancelled | expired; failed/cancelled may lag the job (see state.ts). */
    state: string;
    job_id: string | null;
    owner_type: 'user' | 'apiKey';
    owner_id: string;
    row_count: number | null;
    bytes: number | null;
    error_code: string | null;
    error_message: string | null;
    created_at: number;
    started_at: number | null;
    finished_at: number | null;
    expires_at: number | null;
    /** The file store key of the file that made the export ready (EX7); set only then, so optional here. */
    file_key?: string | null;
  };
};

export type ExportRow = ExportsTables['exports'];
export type ExportsDb = Kysely<KernelTables & ExportsTables>;
export const exportsDb = (db: MetaDb): ExportsDb => db.withTables<ExportsTables>();

// `ifNotExists`: MySQL commits DDL implicitly, so a migration there must survive a rerun (K10).
export const exportsMigrations: Migration[] = [
  {
    name: '0001_exports',
    async up(db) {
      await db.schema
        .createTable('exports')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('connection_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('table_ref', 'varchar(255)', (c) => c.notNull())
        .addColumn('format', 'varchar(8)', (c) => c.notNull())
        .addColumn('columns', 'text', (c) => c.notNull())
        .addColumn('filter', 'text')
        .addColumn('sort', 'text')
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('job_id', 'varchar(32)')
        .addColumn('owner_type', 'varchar(8)', (c) => c.notNull())
        .addColumn('owner_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('row_count', 'bigint')
        .addColumn('bytes', 'bigint')
        .addColumn('error_code', 'varchar(100)')
        .addColumn('error_message', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('started_at', 'bigint')
        .addColumn('finished_at', 'bigint')
        .addColumn('expires_at', 'bigint')
        .execute();
      await rerunnableIndex(db.schema.createIndex('exports_owner').on('exports').columns(['owner_type', 'owner_id', 'id']).execute());
      await rerunnableIndex(db.schema.createIndex('exports_expiry').on('exports').columns(['state', 'expires_at']).execute());
    },
  },
  {
    name: '0002_exports_formula_safe',
    async up(db) {
      // Exports made before this were raw. A rerun on MySQL meets the column it added (1060).
      await rerunnableColumn(
        db.schema
          .alterTable('exports')
          .addColumn('formula_safe', 'integer', (c) => c.notNull().defaultTo(0))
          .execute(),
      );
    },
  },
  {
    name: '0003_exports_file_key',
    async up(db) {
      // K45/EX7: files moved to the file store, under a key per attempt. Exports made ready
      // before have none: their download reads the file where it was written, $SVC_DATA_DIR/exports.
      await rerunnableColumn(db.schema.alterTable('exports').addColumn('file_key', 'varchar(255)').execute());
    },
  },
  {
    name: '0004_exports_search',
    async up(db) {
      // EX9: the grid's search, with the columns it looked in when the export was asked for.
      await rerunnableColumn(db.schema.alterTable('exports').addColumn('search', 'text').execute());
    },
  },
];
