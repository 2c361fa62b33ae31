/**
 * DDL for declared tables (add-ons, D23/D24): plan against what the connection holds, apply with
 * compensation, undo, drop. Dialect differences live in dialects/<dialect>.ts.
 */
export { applyTables, dropTables, InjectedDdlFailure, undoTables } from './apply.js';
export { ddlDialect } from './dialects/index.js';
export { DDL_ERRORS } from './errors.js';
export { indexName, MAX_IDENTIFIER } from './names.js';
export { withInstanceColumn } from './instance.js';
export { planTables, summarisePlan, type PlanOptions, type TablePlanSummary } from './plan.js';
export type {
  AppliedStep,
  ApplyOptions,
  ApplyResult,
  ColumnPlan,
  DdlColumn,
  DdlDialectName,
  DdlPlan,
  DdlTable,
  DeclaredTable,
  IndexPlan,
  TableConflict,
  TablePlan,
  UndoStep,
} from './types.js';
