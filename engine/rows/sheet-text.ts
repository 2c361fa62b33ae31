/** Text in spreadsheet (OOXML) cells, written by the XLSX export and read by the XLSX import. */

/*
 * XML cannot hold most control characters, and a reader turns CR and CRLF into LF (XML's line-end
 * normalisation): OOXML spells such characters `_xHHHH_` (ECMA-376 ST_Xstring), and a `_` that
 * starts such a spelling in the text itself as `_x005F_`. Only inline strings are read back
 * through that escape by every reader (Excel, LibreOffice, exceljs' loader), so text that needs
 * it is written as an inline string (exceljs: a one-run rich text); other text stays as it is.
 */
const NEEDS_ESCAPE = /[\x00-\x08\x0B\x0C\x0D\x0E-\x1F\uFFFE\uFFFF]|_x[0-9A-Fa-f]{4}_/;
const ESCAPED = /[\x00-\x08\x0B\x0C\x0D\x0E-\x1F\uFFFE\uFFFF]|_(?=x[0-9A-Fa-f]{4}_)/g;
const hex4 = (c: string) => `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`;

/** A cell as exceljs' writer takes it. */
export type SheetCell = string | number | boolean | null | { richText: Array<{ text: string }> };

/** A text cell, escaped where XML would lose characters (above). */
export function sheetText(text: string): SheetCell {
  return NEEDS_ESCAPE.test(text) ? { richText: [{ text: text.replace(ESCAPED, hex4) }] } : text;
}

/** What our import reads back from a text cell: the `_xHHHH_` spellings as their characters. */
export function unescapeSheetText(text: string): string {
  return text.includes('_x') ? text.replace(/_x([0-9A-Fa-f]{4})_/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))) : text;
}
