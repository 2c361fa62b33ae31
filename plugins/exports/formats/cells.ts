import { sheetText, type SheetCell } from '../../../engine/rows/index.js';
import type { PortableType } from '../../../engine/schema/model.js';

/** What a format needs to know of a column: its name (the header) and portable type. */
export interface OutColumn {
  name: string;
  type: PortableType;
}

const isBinary = (v: unknown): v is { $binary: string } => typeof v === 'object' && v !== null && typeof (v as { $binary?: unknown }).$binary === 'string';

/**
 * A wire value (engine/rows codec) as text for CSV and spreadsheet text cells. Binary becomes its
 * base64 and JSON its text, so a file read back through the import parses to the same wire value.
 */
export function cellText(value: unknown, type: PortableType): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return type === 'json' ? JSON.stringify(value) : value;
  if (typeof value === 'number' || typeof value === 'boolean') return type === 'json' ? JSON.stringify(value) : String(value);
  if (isBinary(value)) return value.$binary;
  return JSON.stringify(value);
}

/** A wire value in a JSON line: JSON columns stay structured, binary is its base64 text. */
export function cellJson(value: unknown): unknown {
  if (value === undefined) return null;
  return isBinary(value) ? value.$binary : value;
}

/** Types whose text a spreadsheet could take for a formula (dates, numbers, JSON and binary text never start that way unless they are numbers). */
export const FORMULA_PRONE = new Set<PortableType>(['string', 'text', 'enum', 'other']);
/** What a spreadsheet runs as a formula: a cell starting with =, +, -, @, tab or CR (OWASP's CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** …unless it is a number: `-5` or `+1.5e3` is a value, not a formula, and stays as it is. */
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The cell text with a leading apostrophe where a spreadsheet would otherwise run it (EX3). */
export function formulaSafe(text: string): string {
  return FORMULA_START.test(text) && !NUMBER_TEXT.test(text) ? `'${text}` : text;
}

/** A decimal's text without what does not change its value: `+`, trailing fraction zeros, `-0`. */
function canonicalDecimal(text: string): string {
  let t = text.startsWith('+') ? text.slice(1) : text;
  if (t.includes('.')) t = t.replace(/0+$/, '').replace(/\.$/, '');
  return t === '-0' ? '0' : t;
}

/** A bigint or decimal as a number cell only when the double is that exact decimal; else null (it stays text). */
function exactNumber(text: string): number | null {
  if (!/^[+-]?\d+(\.\d+)?$/.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) && String(n) === canonicalDecimal(text) ? n : null;
}

/**
 * A spreadsheet cell: a bigint or decimal is a number only where the double is exactly its
 * value (`0.100000` → 0.1; `12345678901234.123456` or `9007199254740993` stay text, never
 * silently rounded, EX4); dates stay text, so no style table and no time-zone guess are needed.
 */
export function cellSheet(value: unknown, type: PortableType): SheetCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return type === 'json' ? JSON.stringify(value) : value;
  if ((type === 'bigint' || type === 'decimal') && typeof value === 'string') {
    const n = exactNumber(value);
    if (n !== null) return n;
  }
  const text = cellText(value, type);
  return text === null ? null : sheetText(text);
}
