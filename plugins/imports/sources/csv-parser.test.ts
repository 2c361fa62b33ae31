import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CsvParser, type CsvRecord } from './csv-parser.js';

/** Parses `text` fed in pieces cut at `cuts` (every split must give the same records). */
function records(text: string, cuts: number[] = [], delimiter = ','): CsvRecord[] {
  const p = new CsvParser(delimiter);
  const out: CsvRecord[] = [];
  let at = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    p.push(text.slice(at, c), out);
    at = c;
  }
  p.push(text.slice(at), out);
  p.end(out);
  return out;
}

/** Every way of cutting `text` in two and in three pieces gives the same records as one piece. */
function sameWhateverTheCuts(text: string, delimiter = ','): CsvRecord[] {
  const whole = records(text, [], delimiter);
  for (let a = 0; a <= text.length; a++) {
    expect(records(text, [a], delimiter), `cut at ${a}`).toEqual(whole);
    for (let b = a; b <= text.length; b += 3) expect(records(text, [a, b], delimiter), `cuts at ${a}, ${b}`).toEqual(whole);
  }
  return whole;
}

const cells = (rs: CsvRecord[]) => rs.map((r) => [r.line, r.error ?? r.cells]);

describe('CsvParser', () => {
  it('reads quoted fields, doubled quotes, delimiters and line ends inside quotes', () => {
    const text = 'a,b,c\r\n1,"x, ""y""",\r\n2,"two\r\nlines",z\r\n"",,"\t"\r\n';
    expect(cells(sameWhateverTheCuts(text))).toEqual([
      [1, ['a', 'b', 'c']],
      [2, ['1', 'x, "y"', '']],
      [3, ['2', 'two\r\nlines', 'z']],
      [5, ['', '', '\t']],
    ]);
  });

  it('gives each record the line it starts on, skipping empty lines', () => {
    const text = '\uFEFFh1;h2\n\n"a\nb\nc";1\n\n\n2;"x"\n3;4';
    expect(cells(sameWhateverTheCuts(text, ';'))).toEqual([
      [1, ['h1', 'h2']],
      [3, ['a\nb\nc', '1']],
      [8, ['2', 'x']],
      [9, ['3', '4']],
    ]);
  });

  it('keeps a lone CR inside a field of an LF file, and reads a CR-only file', () => {
    expect(cells(records('a,b\n1,x\r2\n'))).toEqual([
      [1, ['a', 'b']],
      [2, ['1', 'x\r2']],
    ]);
    expect(cells(sameWhateverTheCuts('a,b\r1,"x\ry"\r2,z\r'))).toEqual([
      [1, ['a', 'b']],
      [2, ['1', 'x\ry']],
      [4, ['2', 'z']],
    ]);
  });

  it('refuses malformed records with their line and reads on at the next line', () => {
    const text = 'a,b\n1,x"y\n2,"x"y\n3,"ok"\n4, "x"\n5,"open\n6,never';
    const got = sameWhateverTheCuts(text);
    expect(got.map((r) => [r.line, r.error ?? r.cells])).toEqual([
      [1, ['a', 'b']],
      [2, 'malformed CSV: a quote inside an unquoted field'],
      [3, 'malformed CSV: text after a closing quote'],
      [4, ['3', 'ok']],
      [5, 'malformed CSV: a quote inside an unquoted field'],
      [6, 'malformed CSV: a quote is not closed'],
    ]);
    expect(got[1]).toMatchObject({ raw: ['1,x"y'] });
  });

  it('ends a last record without a line end, including an empty last field', () => {
    expect(cells(records('a,b\n1,'))).toEqual([
      [1, ['a', 'b']],
      [2, ['1', '']],
    ]);
    expect(cells(records('a,b\r\n1,2\r'))).toEqual([
      [1, ['a', 'b']],
      [2, ['1', '2']],
    ]);
  });

  it('agrees with csv-parse on well-formed files of random content', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const alphabet = ['a', 'é', '😀', ' ', ',', '"', '\n', '\r\n', '\t', '\\', ';', '0'];
    for (let round = 0; round < 200; round++) {
      const width = 1 + rand(4);
      const rows: string[][] = [];
      for (let r = 0; r < 1 + rand(6); r++) {
        const row: string[] = [];
        for (let c = 0; c < width; c++) row.push(Array.from({ length: rand(6) }, () => alphabet[rand(alphabet.length)]!).join(''));
        rows.push(row);
      }
      // Quote what needs it, and sometimes what does not.
      const eol = rand(2) ? '\r\n' : '\n';
      const text =
        rows.map((row) => row.map((v) => (/[",\r\n]/.test(v) || rand(3) === 0 ? `"${v.replace(/"/g, '""')}"` : v)).join(',')).join(eol) + (rand(2) ? eol : '');
      const expected = (parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][]).filter((r) => !(r.length === 1 && r[0] === ''));
      const got = records(text, [rand(text.length + 1), rand(text.length + 1)]);
      expect(
        got.map((r) => (r.error === undefined ? r.cells : r.error)).filter((r) => !(Array.isArray(r) && r.length === 1 && r[0] === '')),
        JSON.stringify(text),
      ).toEqual(expected);
    }
  });
});
