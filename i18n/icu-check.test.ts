import { describe, expect, it } from 'vitest';
import { checkMessage, placeholdersOf } from './icu-check.js';

describe('the ICU check', () => {
  it('passes a faithful translation', () => {
    expect(checkMessage('Hallo {name}', 'Hello {name}')).toEqual([]);
    expect(checkMessage('{count, plural, one {# Zeile} other {# Zeilen}}', '{count, plural, one {# row} other {# rows}}')).toEqual([]);
    expect(checkMessage('<b>Fett</b> {n, number}', '<b>Bold</b> {n, number}')).toEqual([]);
    // Arabic has more plural forms than English: more cases are fine.
    expect(checkMessage('{n, plural, zero {a} one {b} two {c} few {d} many {e} other {f}}', '{n, plural, one {x} other {y}}')).toEqual([]);
  });

  it('names an unclosed brace with the parser’s offset', () => {
    const [p, ...rest] = checkMessage('Hallo {name', 'Hello {name}');
    expect(rest).toEqual([]);
    expect(p).toMatchObject({ kind: 'syntax', offset: 6 });
    expect(p!.message).toMatch(/character 7: a brace \{ is not closed/);
  });

  it('names a renamed placeholder with what was expected and what was found', () => {
    expect(checkMessage('Hallo {nom}', 'Hello {name}')).toEqual([expect.objectContaining({ kind: 'placeholders', expected: ['{name}'], found: ['{nom}'] })]);
  });

  it('names a placeholder of another kind', () => {
    expect(checkMessage('{n} Zeilen', '{n, number} rows')).toEqual([
      expect.objectContaining({ kind: 'placeholders', expected: ['{n, number}'], found: ['{n}'] }),
    ]);
  });

  it('names a plural or select without other', () => {
    expect(checkMessage('{n, plural, one {eine}}', '{n, plural, one {one} other {many}}')).toEqual([expect.objectContaining({ kind: 'plural-other' })]);
    expect(checkMessage('{g, select, male {er}}')).toEqual([expect.objectContaining({ kind: 'plural-other' })]);
  });

  it('names tags that differ', () => {
    expect(checkMessage('Fett', '<b>Bold</b>')).toEqual([expect.objectContaining({ kind: 'tags', expected: ['<b>'], found: [] })]);
    expect(checkMessage('<b>Fett', '<b>Bold</b>')).toEqual([expect.objectContaining({ kind: 'syntax' })]);
  });

  it('checks the text alone without a source, and lists placeholders', () => {
    expect(checkMessage('Plain text')).toEqual([]);
    expect(placeholdersOf('{a} {b, date, short} {c, selectordinal, one {x} other {y}}')).toEqual(['{a}', '{b, date}', '{c, selectordinal}']);
    expect(placeholdersOf('{oops')).toEqual([]);
  });
});
