import { describe, expect, it } from 'vitest';
import { parseWeek, pastMidnight, rangeOk, weekJson } from './OpeningHours';

describe('the opening-hours editor’s week', () => {
  it('reads the JSON of the booking rules, a day left out closed, and writes every day back in order', () => {
    const week = parseWeek('{"sun":[["18:00","24:00"]],"mon":[["12:00","14:30"],["18:00","22:00"]]}');
    expect(week).toEqual({
      mon: [
        ['12:00', '14:30'],
        ['18:00', '22:00'],
      ],
      tue: [],
      wed: [],
      thu: [],
      fri: [],
      sat: [],
      sun: [['18:00', '24:00']],
    });
    expect(weekJson(week!)).toBe('{"mon":[["12:00","14:30"],["18:00","22:00"]],"tue":[],"wed":[],"thu":[],"fri":[],"sat":[],"sun":[["18:00","24:00"]]}');
    expect(parseWeek('')).toEqual({ mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] });
  });

  it('gives up on what is not opening hours (the raw text is then edited as text)', () => {
    for (const raw of ['not json', '[]', '{"monday":[]}', '{"mon":[["12:00"]]}', '{"mon":[["25:00","26:00"]]}', '{"mon":"12-14"}'])
      expect(parseWeek(raw)).toBeNull();
  });

  it('a range closes at another time than it opens; a close before the opening runs past midnight', () => {
    expect(rangeOk(['12:00', '14:30'])).toBe(true);
    expect(rangeOk(['18:00', '24:00'])).toBe(true);
    expect(pastMidnight(['18:00', '24:00'])).toBe(false);
    expect(rangeOk(['18:00', '02:00'])).toBe(true);
    expect(pastMidnight(['18:00', '02:00'])).toBe(true);
    expect(pastMidnight(['12:00', '14:30'])).toBe(false);
    expect(rangeOk(['12:00', '12:00'])).toBe(false);
    expect(rangeOk(['24:00', '02:00'])).toBe(false);
    expect(rangeOk(['', '12:00'])).toBe(false);
  });
});
