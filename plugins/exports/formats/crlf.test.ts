import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { CsvRecordEnds } from './crlf.js';

async function convert(chunks: string[]): Promise<{ out: string; records: number; seen: number[] }> {
  const seen: number[] = [];
  const t = new CsvRecordEnds((n) => seen.push(n));
  const out = await text(Readable.from(chunks.map((c) => Buffer.from(c))).pipe(t));
  return { out, records: t.records, seen };
}

describe('CsvRecordEnds', () => {
  it('ends records with CRLF and keeps line breaks inside quoted fields', async () => {
    const csv = '1,plain\n2,"two\nlines"\n3,"quote "" and\ncomma, here"\n4,\n';
    const { out, records } = await convert([csv]);
    expect(out).toBe('1,plain\r\n2,"two\nlines"\r\n3,"quote "" and\ncomma, here"\r\n4,\r\n');
    expect(records).toBe(4);
  });

  it('gives the same bytes whatever the chunk boundaries', async () => {
    const csv = '1,"a\n""b"""\n2,"x,y"\n3,z\n"\n",""\n';
    const whole = await convert([csv]);
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < csv.length; i += size) chunks.push(csv.slice(i, i + size));
      const split = await convert(chunks);
      expect(split.out).toBe(whole.out);
      expect(split.records).toBe(4);
    }
    expect(whole.out.split('\r\n').length).toBe(5);
  });

  it('reports the running count as records complete', async () => {
    const { seen } = await convert(['1\n2\n', '3', '\n']);
    expect(seen).toEqual([2, 3]);
  });
});
