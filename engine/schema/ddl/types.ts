import type { ColumnDefinitionBuilder, CreateTableBuilder, Expression, Kysely } from 'kysely';
import type { PortableType } from '../model.js';

export type DdlDialectName = 'postgres' | 'mysql' | 'sqlite';
/** A column type as kysely's schema builder takes it (a known type name, or an sql`` expression). */
export type DataTypeExpression = Parameters<CreateTableBuilder<string, never>['addColumn']>[1];

/** Every portable type but `other`, which has no DDL. */
export type DeclaredType = Exclude<PortableType, 'other'>;

/**
 * A column as the DDL creates it. The engine states what it reads and loads no add-on code: an
 * add-on's parsed table declaration (the SDK's `TableDeclaration`) is one of these by shape, so
 * the add-ons plugin passes it as it is and the compiler checks the two agree.
 */
export interface DdlColumn {
  name: string;
  type: DeclaredType;
  nullable: boolean;
  /** A literal default; the string `now()` means the time of the insert (date, datetime, time). */
  default?: string | number | boolean | null;
  /** `string` only (default 255). */
  maxLength?: number;
  /** `decimal` only (default 12, 2). */
  precision?: number;
  scale?: number;
  /** `enum` only: the allowed values. */
  values?: string[];
  /** `integer` or `bigint` one-column primary key only: the database numbers new rows. */
  autoIncrement: boolean;
  unique: boolean;
}

/** A table as the DDL creates it (see DdlColumn). */
export interface DdlTable {
  name: string;
  columns: DdlColumn[];
  primaryKey: string[];
  indexes: { columns: string[]; unique: boolean }[];
}

/** One declared table and the physical name it gets on the connection (physicalTableName). */
export interface DeclaredTable {
  physicalName: string;
  table: DdlTable;
}

export interface ColumnPlan {
  name: string;
  type: DeclaredType;
  action: 'add' | 'keep' | 'drop' | 'retype';
  /** The declaration to create (`add`, `retype`); absent for `drop` and `keep`. */
  declaration?: DdlColumn;
}

export interface IndexPlan {
  /** Deterministic and within every dialect's identifier limit (indexName). */
  name: string;
  columns: string[];
  unique: boolean;
  /** `drop`: an existing index on a column being dropped (destructive plans only; SQLite cannot drop an indexed column). */
  action: 'add' | 'keep' | 'drop';
}

export interface TablePlan {
  /** The physical name on the connection. */
  name: string;
  /** The name in the add-on's manifest. */
  declaredName: string;
  action: 'create' | 'alter' | 'keep' | 'drop';
  columns: ColumnPlan[];
  indexes: IndexPlan[];
  /** `create` only: the primary key, in key order. */
  primaryKey: string[];
}

export interface TableConflict {
  /** The physical name that already exists on the connection and is not the add-on's. */
  table: string;
  reason: 'exists';
}

export interface DdlPlan {
  tables: TablePlan[];
  /** Something would drop or retype existing data: applied only with `allowDestructive`. */
  destructive: boolean;
  /** Shown to the operator; nothing here stops the plan. */
  warnings: string[];
  /** Tables that exist and are not this add-on's previous version's: the caller answers 409 ADDON_CONFLICT. */
  conflicts: TableConflict[];
  /** What this plan cannot do at all (a NOT NULL column without default on an existing table, a name too long): applyTables refuses. */
  refusals: string[];
}

export interface ServerInfo {
  dialect: DdlDialectName;
  /** MySQL flavour: MariaDB (≥ 10.7 has a native UUID type) or MySQL. */
  mariadb: boolean;
  /** MariaDB's native UUID type is there (10.7+). */
  nativeUuid: boolean;
}

/** What differs per dialect for DDL; one small file each under dialects/. */
export interface DdlDialect {
  name: DdlDialectName;
  /** DDL can run inside a transaction (PostgreSQL, SQLite); MySQL commits each statement. */
  transactional: boolean;
  /** The column type as the dialect spells it. */
  dataType(c: DdlColumn, server: ServerInfo): DataTypeExpression;
  /**
   * Everything after the type: NOT NULL, default, identity / auto-increment (the caller marks a
   * one-column primary key on the column itself when `inlinePrimaryKey`), enum checks.
   */
  modifiers(b: ColumnDefinitionBuilder, c: DdlColumn, opts: { inlinePrimaryKey: boolean; server: ServerInfo }): ColumnDefinitionBuilder;
  /** The expression `default: 'now()'` stands for on a date, datetime or time column. */
  now(type: 'date' | 'datetime' | 'time'): Expression<unknown>;
  /** Changes a column's type in place (destructive, only with allowDestructive); null when the dialect cannot. */
  retype: ((db: Kysely<any>, table: string, c: DdlColumn, server: ServerInfo) => Promise<void>) | null;
  dropIndex(db: Kysely<any>, table: string, index: string): Promise<void>;
}

/** One compensating step: what applyTables did, undone in reverse order by undoTables. */
export type UndoStep =
  { kind: 'dropTable'; table: string } | { kind: 'dropColumn'; table: string; column: string } | { kind: 'dropIndex'; table: string; index: string };

/** What applyTables ran, for the add-ons plugin to show or log. */
export interface AppliedStep {
  kind: 'createTable' | 'addColumn' | 'addIndex' | 'dropIndex' | 'dropColumn' | 'retypeColumn' | 'dropTable';
  table: string;
  column?: string;
  index?: string;
}

export interface ApplyOptions {
  /** Drop and retype as the plan says; without it a destructive plan is refused (409 DDL_REFUSED). */
  allowDestructive?: boolean;
  /**
   * Test hook: throw after this many steps have run (0: before the first), as a failing database
   * would, so callers can prove a failed install leaves the connection as it was.
   */
  failAfter?: number;
  /** Called before each step; throwing from it fails the apply at that step (another test hook). */
  onStep?: (step: AppliedStep, index: number) => void | Promise<void>;
  /** Run inside one transaction where the dialect allows (default true); false tests compensation alone. */
  transaction?: boolean;
}

export interface ApplyResult {
  steps: AppliedStep[];
  /** Compensation for every additive step, to pass to undoTables when what follows (the meta store's transaction) fails. */
  undo: UndoStep[];
}
