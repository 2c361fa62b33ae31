import { describe, expect, it } from 'vitest';
import { sheetText, unescapeSheetText } from './sheet-text.js';

const back = (text: string) => {
  const cell = sheetText(text);
  return unescapeSheetText(typeof cell === 'string' ? cell : (cell as { richText: Array<{ text: string }> }).richText[0]!.text);
};

describe('spreadsheet cell text', () => {
  it('leaves ordinary text as a plain string', () => {
    for (const t of ['plain', 'two\nlines', 'tab\there', '=1+2', '_x_', 'x000D_']) expect(sheetText(t)).toBe(t);
  });

  it('escapes CR, control characters and literal _xHHHH_ as an inline string', () => {
    expect(sheetText('cr\r\nlf')).toEqual({ richText: [{ text: 'cr_x000D_\nlf' }] });
    expect(sheetText('a\u0001b')).toEqual({ richText: [{ text: 'a_x0001_b' }] });
    expect(sheetText('lit _x000D_ and _x00ab_')).toEqual({ richText: [{ text: 'lit _x005F_x000D_ and _x005F_x00ab_' }] });
  });

  it('reads every escaped text back exactly', () => {
    for (const t of ['cr\r\nlf', '\r', 'a\u0000\u001f\ufffeb', '_x000D_', '__x0041__', '_x005F_x0041_', 'mix\r_x0041_\u0007']) expect(back(t)).toBe(t);
  });
});
