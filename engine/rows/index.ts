/** Reading and writing rows of an operator's table; README.md describes the API. */
export { binaryWire, normaliseDatetime, ORDERABLE_TYPES, parseText, parseWire, SEARCHABLE_TYPES, TEXTUAL_TYPES } from './codec.js';
export { cursorContext, decodeRowCursor, encodeRowCursor, type RowCursor } from './cursor.js';
export type { AnyDb, RowDialect, WriteFailure } from './dialect.js';
export { rowDialect } from './dialects/index.js';
export { POSTGRES_WIRE_TEXT_SETTINGS, postgresCellText } from './dialects/postgres-text.js';
export {
  containsPattern,
  FILTER_OPS,
  likePattern,
  MAX_IN_VALUES,
  parseListParams,
  type Filter,
  type FilterOp,
  type ListParamOptions,
  type ListParams,
  type SortKey,
} from './query-params.js';
export { PlannerEstimates } from './planner-estimates.js';
export {
  countRows,
  type CountOptions,
  keySql,
  listRows,
  orderKeys,
  rawValues,
  readRow,
  selectList,
  toWireRow,
  whereSql,
  type ListOptions,
  type RowCount,
  type RowPage,
} from './read.js';
export { keysetSql, orderBySql } from './read.js';
export { integerRange, rangeRefusal } from './ranges.js';
export { parseRecordId, recordIdOf } from './record-id.js';
export { columnOf, primaryKeyColumns, refuse, RowInputError, type InputIssue, type PortableValue, type RowsDialectName, type RowTable } from './types.js';
export { deleteRow, insertRow, keysToGive, updateRow, type Assignment } from './write.js';
export { setField, wireRowMaker, type WireRowMaker } from './wire-row.js';
export { sheetText, unescapeSheetText, type SheetCell } from './sheet-text.js';
export { readsColumn, type ReadRuleColumn } from './column-access.js';
export { cancellable, StatementCancelled } from './cancel.js';
