import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ValueColumn } from './format';
import { plainValue, Value } from './Value';

const BERLIN = { locale: 'de-DE', timeZone: 'Europe/Berlin' };
const col = (type: ValueColumn['type'], nativeType: string = type): ValueColumn => ({ name: 'c', type, nativeType, scale: null, display: { label: 'Col' } });
const html = (column: ValueColumn, value: unknown, inGrid = false) =>
  renderToStaticMarkup(<Value column={column} value={value} context={BERLIN} inGrid={inGrid} />);

describe('Value draws what format.ts reads', () => {
  it('puts the exact value in the title of a date-time, inside a <time>', () => {
    expect(html(col('datetime', 'timestamptz'), '2026-11-27T20:14:36.747208Z')).toBe(
      '<time class="value" dateTime="2026-11-27T20:14:36.747208Z" title="2026-11-27T20:14:36.747208Z" data-value-kind="datetime">27. Nov. 2026, 21:14:36 MEZ</time>',
    );
  });

  it('shortens a UUID beside a copy button named with the whole one, out of the Tab order in a grid', () => {
    const out = html(col('uuid'), '0b9a4d3e-8f00-4c1b-9a55-1f2e3d4c5b6a', true);
    expect(out).toContain('title="0b9a4d3e-8f00-4c1b-9a55-1f2e3d4c5b6a" data-value-kind="uuid">0b9a4d3e…</span>');
    expect(out).toContain('tabindex="-1"');
    expect(out).toContain('aria-label="Copy 0b9a4d3e-8f00-4c1b-9a55-1f2e3d4c5b6a"');
  });

  it('offers bytes for download by their size', () => {
    const out = html(col('binary', 'bytea'), { $binary: 'AAECAw==' });
    expect(out).toContain('href="data:application/octet-stream;base64,AAECAw=="');
    expect(out).toContain('download="c.bin"');
    expect(out).toContain('aria-label="Download 4 Byte"');
  });

  it('keeps JSON closed until asked, with a button that says what it opens', () => {
    const out = html(col('json', 'jsonb'), { a: [1, 2] });
    expect(out).toContain('aria-expanded="false"');
    expect(out).toContain('aria-label="Show the JSON of Col"');
    expect(out).toContain('<code title="{&quot;a&quot;:[1,2]}" data-value-kind="json">{&quot;a&quot;:[1,2]}</code>');
    expect(out).not.toContain('<pre');
  });

  it('says NULL for a missing value and draws enums as chips', () => {
    expect(html(col('string'), null)).toBe('<span class="value value-null">NULL</span>');
    expect(html(col('enum', 'mood'), 'calm')).toContain('class="value value-chip"');
  });

  it('gives plain text to a host that draws it as its own (a grid cell), and nothing for a value that needs an element', () => {
    expect(plainValue({ column: col('datetime', 'timestamptz'), value: '2026-11-27T20:14:36.747208Z' }, BERLIN)).toEqual({
      kind: 'datetime',
      text: '27. Nov. 2026, 21:14:36 MEZ',
      exact: '2026-11-27T20:14:36.747208Z',
      className: '',
    });
    expect(plainValue({ column: col('decimal', 'numeric'), value: '1234.50' }, BERLIN)).toMatchObject({
      text: '1.234,50',
      exact: '1234.50',
      className: 'value-number',
    });
    expect(plainValue({ column: col('string'), value: null }, BERLIN)).toEqual({ kind: 'null', text: 'NULL', exact: '', className: 'value-null' });
    expect(plainValue({ column: col('boolean'), value: true }, BERLIN)).toBeNull();
    expect(plainValue({ column: col('enum', 'mood'), value: 'calm' }, BERLIN)).toBeNull();
    expect(plainValue({ column: col('uuid'), value: '0b9a4d3e-8f00-4c1b-9a55-1f2e3d4c5b6a' }, BERLIN)).toBeNull();
    expect(plainValue({ column: col('json', 'jsonb'), value: { a: 1 } }, BERLIN)).toBeNull();
    const reference = { conn: 'c', table: 'person', column: 'id', display: 'name' } as never;
    expect(plainValue({ column: col('integer'), value: 7, reference }, BERLIN)).toBeNull();
  });
});
