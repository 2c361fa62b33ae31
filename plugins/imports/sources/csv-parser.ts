/*
 * An RFC 4180 parser that works on whole chunks of text. csv-parse goes character by character
 * through a state machine and, with `info`, builds an object per record; on a large import that
 * was most of the time spent. Here fields are cut with `indexOf`/`slice`, and a record's line is
 * counted on the way (the physical line it starts on, newlines inside quoted fields included).
 *
 * What it accepts is what csv-parse accepted as the readers configured it: `"` quotes with `""`
 * inside, LF, CRLF or (when the file's first line ends so) CR line ends, empty lines skipped, a
 * BOM dropped. A quote inside an unquoted field, text after a closing quote and a quote never
 * closed make the record malformed; reading goes on at the next line.
 */

export type CsvRecord = { line: number; cells: string[]; error?: undefined } | { line: number; error: string; raw: string[] };

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
/** Raw text kept from a malformed record for the error report. */
const RAW_MAX = 1000;

export class CsvParser {
  private readonly delim: number;
  /** Text not parsed yet: the start of a record the chunks so far do not finish. */
  private rest = '';
  /** Chunks held back while `rest` is long, so a huge record is not re-scanned for every chunk. */
  private held: string[] = [];
  private heldLength = 0;
  /** The line `rest` starts on. */
  private line = 1;
  /** Null until the first line end is seen: LF (LF or CRLF) or CR. */
  private eol: number | null = null;
  private first = true;

  constructor(delimiter: string) {
    if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r')
      throw new Error(`unsupported CSV delimiter ${JSON.stringify(delimiter)}`);
    this.delim = delimiter.charCodeAt(0);
  }

  /** Parses what `chunk` completes; the records go to `out`. */
  push(chunk: string, out: CsvRecord[]): void {
    if (this.first) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      if (chunk.length) this.first = false;
    }
    if (this.rest.length > 0 && this.heldLength + chunk.length < this.rest.length) {
      this.held.push(chunk);
      this.heldLength += chunk.length;
      return;
    }
    const text = this.held.length ? this.rest + this.held.join('') + chunk : this.rest + chunk;
    this.held = [];
    this.heldLength = 0;
    this.parse(text, false, out);
  }

  /** The end of the input: whatever is left is the last record. */
  end(out: CsvRecord[]): void {
    const text = this.held.length ? this.rest + this.held.join('') : this.rest;
    this.held = [];
    this.heldLength = 0;
    this.parse(text, true, out);
    this.rest = '';
  }

  private parse(s: string, final: boolean, out: CsvRecord[]): void {
    const n = s.length;
    if (this.eol === null) {
      const lf = s.indexOf('\n');
      const cr = s.indexOf('\r');
      if (cr >= 0 && (lf < 0 || cr < lf) && (cr + 1 < n || final)) this.eol = s.charCodeAt(cr + 1) === LF ? LF : CR;
      else if (lf >= 0 || final) this.eol = LF;
      else {
        this.rest = s;
        return;
      }
    }
    const eol = this.eol;
    const crlf = eol === LF;
    const delim = this.delim;
    const eolChar = crlf ? '\n' : '\r';
    let i = 0;
    let done = 0; // where the records parsed so far end
    let line = this.line;
    records: while (i < n) {
      const start = i;
      let c = s.charCodeAt(i);
      // An empty line.
      if (c === eol) {
        done = ++i;
        line++;
        continue;
      }
      if (crlf && c === CR) {
        if (i + 1 === n && !final) break;
        if (i + 1 === n || s.charCodeAt(i + 1) === LF) {
          done = i += 2;
          line++;
          continue;
        }
      }
      const cells: string[] = [];
      let inner = 0; // line ends inside quoted fields
      let error: string | null = null;
      for (;;) {
        c = s.charCodeAt(i);
        if (c === QUOTE) {
          const open = i + 1;
          let k = open;
          let doubled = false;
          let j: number;
          for (;;) {
            j = s.indexOf('"', k);
            if (j < 0) {
              if (!final) break records;
              error = 'a quote is not closed';
              break;
            }
            if (j + 1 === n && !final) break records;
            if (s.charCodeAt(j + 1) === QUOTE) {
              doubled = true;
              k = j + 2;
              continue;
            }
            break;
          }
          if (error !== null) {
            i = n;
            break;
          }
          // One flat string (not pieces joined), which whoever reads it next need not flatten.
          const value = doubled ? s.slice(open, j).replaceAll('""', '"') : s.slice(open, j);
          for (let p = s.indexOf(eolChar, open); p !== -1 && p < j; p = s.indexOf(eolChar, p + 1)) inner++;
          cells.push(value);
          i = j + 1;
          if (i === n) break; // the file's last record
          c = s.charCodeAt(i);
          if (c === delim) {
            i++;
            continue;
          }
          if (c === eol) {
            i++;
            break;
          }
          if (crlf && c === CR) {
            if (i + 1 === n && !final) break records;
            if (i + 1 === n || s.charCodeAt(i + 1) === LF) {
              i += 2;
              break;
            }
          }
          error = 'text after a closing quote';
          break;
        }
        let j = i;
        for (; j < n; j++) {
          c = s.charCodeAt(j);
          if (c === delim || c === eol || c === QUOTE) break;
        }
        if (j === n) {
          if (!final) break records;
          cells.push(crlf && j > i && s.charCodeAt(j - 1) === CR ? s.slice(i, j - 1) : s.slice(i, j));
          i = n;
          break;
        }
        if (c === QUOTE) {
          error = 'a quote inside an unquoted field';
          break;
        }
        if (c === delim) {
          cells.push(s.slice(i, j));
          i = j + 1;
          if (i === n && final) {
            cells.push('');
            break;
          }
          continue;
        }
        // A line end; the CR of a CRLF is not data.
        cells.push(crlf && j > i && s.charCodeAt(j - 1) === CR ? s.slice(i, j - 1) : s.slice(i, j));
        i = j + 1;
        break;
      }
      if (error !== null) {
        // Skip to the end of the physical line the error is on, then read on.
        let e = i >= n ? -1 : s.indexOf(eolChar, i);
        if (e < 0) {
          if (!final) break records;
          e = n;
        }
        const raw = s.slice(start, Math.min(e, start + RAW_MAX));
        out.push({ line, error: `malformed CSV: ${error}`, raw: [crlf && raw.charCodeAt(raw.length - 1) === CR ? raw.slice(0, -1) : raw] });
        for (let p = s.indexOf(eolChar, start); p !== -1 && p < e; p = s.indexOf(eolChar, p + 1)) line++;
        line++;
        done = i = e + 1;
        continue;
      }
      out.push({ line, cells });
      line += 1 + inner;
      done = i;
    }
    this.rest = done >= n ? '' : s.slice(done);
    this.line = line;
  }
}
