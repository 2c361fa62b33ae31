import type { Readable } from 'node:stream';
import { z } from 'zod';
import { defineServiceRef, type Principal } from '../../kernel/api.js';
import type { ExportFormat } from './formats/index.js';
import { filterSchema, searchSchema, sortSchema, type Filter } from './query.js';

export type { ExportFormat } from './formats/index.js';
export type { Filter as ExportFilter } from './query.js';

/**
 * What another plugin asks to export: the body of `POST /exports` (a table of a connection, the
 * columns, a filter in the exports' grammar and a D12 sort), as the query of a grid or a report
 * names it.
 */
export interface ExportToFile {
  connectionId: string;
  /** The table ref (SC2). */
  table: string;
  format: ExportFormat;
  columns?: string[];
  filter?: Filter;
  /** The grid's search: rows holding this text in a readable text column. */
  search?: string;
  sort?: string;
  /** Default true: a person opens the file in a spreadsheet. */
  formulaSafe?: boolean;
}

/** The query part of an export as another plugin stores it (columns, filter, sort), checked as POST /exports checks them. */
export const exportQuerySchema = z.strictObject({
  columns: z.array(z.string().min(1).max(255)).min(1).max(1000).optional(),
  filter: filterSchema.optional(),
  search: searchSchema.optional(),
  sort: sortSchema.optional(),
});
export type ExportQuery = z.infer<typeof exportQuerySchema>;

/** A finished export file in the kernel's file store (K45). */
export interface ExportedFile {
  /** The export's id: `GET /exports/{id}/download` downloads it for its owner (and exports.admin). */
  exportId: string;
  fileKey: string;
  fileName: string;
  contentType: string;
  format: ExportFormat;
  size: number;
  rowCount: number;
  expiresAt: number;
  /** Opens the file (null once it was removed). */
  open(): Promise<Readable | null>;
}

/** What the exports plugin provides (`kernel.plugin(exportsRef)` from a plugin that requires 'exports'). */
export interface ExportsProvides {
  /**
   * Exports with `principal`'s grants as they are now (data.read on the table, DA2's column rule,
   * never a secret column) and streams the rows into a file, answering it once written. Refuses
   * as `POST /exports` does: 404 NOT_FOUND (connection or table), 403 FORBIDDEN (data.read),
   * 400 VALIDATION_FAILED (columns, filter, sort).
   */
  exportToFile(principal: Principal, input: ExportToFile, opts?: { signal?: AbortSignal }): Promise<ExportedFile>;
  /** Checks what exportToFile would refuse, without exporting (same errors; issues at `body.columns…`, `body.filter…`, `body.sort`). */
  check(principal: Principal, input: ExportToFile): Promise<void>;
}

export const exportsRef = defineServiceRef<ExportsProvides>('exports');
