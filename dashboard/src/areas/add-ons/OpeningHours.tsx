import { useId, useState } from 'react';
import { t } from '../../i18n/t';

/**
 * The editor of a setting whose format is `opening-hours` (the JSON of the booking rules'
 * opening hours, `{"mon": [["12:00","14:30"], ["18:00","22:00"]], …}`): a week, each day closed
 * or open in one or more ranges. What it hands on is that JSON again (every day present, a
 * closed one as `[]`), which the server checks as it checks any.
 */
export const WEEK = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type WeekDay = (typeof WEEK)[number];
export type Range = [string, string];
export type Week = Record<WeekDay, Range[]>;

const CLOCK = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
/** The range a day gets when it is opened (or a range added after the last one). */
const FIRST_RANGE: Range = ['12:00', '22:00'];

/** The JSON → a week; null when it is not opening hours (the raw text is then edited as text). */
export function parseWeek(json: string): Week | null {
  if (json.trim() === '') return Object.fromEntries(WEEK.map((d) => [d, []])) as unknown as Week;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const out = {} as Week;
  for (const key of Object.keys(value)) if (!(WEEK as readonly string[]).includes(key)) return null;
  for (const day of WEEK) {
    const ranges = (value as Record<string, unknown>)[day] ?? [];
    if (!Array.isArray(ranges)) return null;
    out[day] = [];
    for (const r of ranges) {
      if (!Array.isArray(r) || r.length !== 2 || !r.every((x) => typeof x === 'string' && CLOCK.test(x))) return null;
      out[day].push([r[0], r[1]]);
    }
  }
  return out;
}

/** A week → its JSON, days in order. */
export function weekJson(week: Week): string {
  return JSON.stringify(Object.fromEntries(WEEK.map((d) => [d, week[d]])));
}

/** "24:00" (the end of a day) is shown as 00:00 in a time input, which cannot say 24:00. */
const toInput = (clock: string) => (clock === '24:00' ? '00:00' : clock);
const fromInput = (value: string, closing: boolean) => (closing && value === '00:00' ? '24:00' : value);
/**
 * Whether a range can be kept: it closes at another time than it opens. A close before the
 * opening runs past midnight (`pastMidnight`); a close at 24:00 (00:00 in the input) is the day's end.
 */
export const rangeOk = ([open, close]: Range) => CLOCK.test(open) && CLOCK.test(close) && open !== close && open !== '24:00';
export const pastMidnight = ([open, close]: Range) => rangeOk([open, close]) && close < open;

export function OpeningHoursInput({
  id,
  label,
  value,
  describedBy,
  invalid,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  describedBy: string | undefined;
  invalid: boolean;
  onChange: (value: string) => void;
}) {
  const week = parseWeek(value);
  // The ranges a closed day had, so opening it again gives them back.
  const [kept, setKept] = useState<Partial<Week>>({});
  const own = useId();
  if (!week) {
    return (
      <>
        <p className="field-error" id={`${own}-raw`}>
          {t('addOns.hours.unreadable')}
        </p>
        <textarea
          id={id}
          rows={4}
          value={value}
          aria-invalid
          aria-describedby={[describedBy, `${own}-raw`].filter(Boolean).join(' ')}
          onChange={(e) => onChange(e.target.value)}
        />
      </>
    );
  }
  const set = (day: WeekDay, ranges: Range[]) => onChange(weekJson({ ...week, [day]: ranges }));
  return (
    <fieldset className="addons-hours" id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined}>
      <legend>{label}</legend>
      {WEEK.map((day) => {
        const name = t(`addOns.hours.day.${day}`);
        const ranges = week[day];
        const open = ranges.length > 0;
        return (
          <div key={day} className="addons-hours-day" role="group" aria-labelledby={`${own}-${day}`} data-testid={`hours-${day}`}>
            <div className="addons-hours-head">
              <span className="addons-hours-name" id={`${own}-${day}`}>
                {name}
              </span>
              <label className="addons-hours-open">
                <input
                  type="checkbox"
                  checked={open}
                  onChange={(e) => {
                    if (e.target.checked) set(day, kept[day]?.length ? kept[day] : [FIRST_RANGE]);
                    else {
                      setKept((k) => ({ ...k, [day]: ranges }));
                      set(day, []);
                    }
                  }}
                />
                {t('addOns.hours.open')}
                <span className="visually-hidden"> {t('addOns.hours.onDay', { day: name })}</span>
              </label>
            </div>
            {!open && <p className="hint addons-hours-closed">{t('addOns.hours.closed')}</p>}
            {ranges.map((range, i) => {
              const bad = !rangeOk(range);
              const n = i + 1;
              return (
                <div key={i} className="addons-hours-range" data-testid={`hours-${day}-${n}`}>
                  <label>
                    {t('addOns.hours.opens')}
                    <span className="visually-hidden"> {t('addOns.hours.rangeOf', { day: name, n })}</span>
                    <input
                      type="time"
                      step={300}
                      value={toInput(range[0])}
                      aria-invalid={bad || undefined}
                      onChange={(e) =>
                        set(
                          day,
                          ranges.map((r, j) => (j === i ? [e.target.value, r[1]] : r)),
                        )
                      }
                    />
                  </label>
                  <label>
                    {t('addOns.hours.closes')}
                    <span className="visually-hidden"> {t('addOns.hours.rangeOf', { day: name, n })}</span>
                    <input
                      type="time"
                      step={300}
                      value={toInput(range[1])}
                      aria-invalid={bad || undefined}
                      aria-describedby={bad ? `${own}-${day}-${n}-error` : undefined}
                      onChange={(e) =>
                        set(
                          day,
                          ranges.map((r, j) => (j === i ? [r[0], fromInput(e.target.value, true)] : r)),
                        )
                      }
                    />
                  </label>
                  {pastMidnight(range) && <span className="hint addons-hours-next-day">{t('addOns.hours.nextDay')}</span>}
                  {ranges.length > 1 && (
                    <button
                      type="button"
                      className="secondary"
                      aria-label={t('addOns.hours.removeOf', { day: name, n })}
                      onClick={() =>
                        set(
                          day,
                          ranges.filter((_, j) => j !== i),
                        )
                      }
                    >
                      {t('addOns.hours.remove')}
                    </button>
                  )}
                  {bad && (
                    <p className="field-error" id={`${own}-${day}-${n}-error`}>
                      {t('addOns.hours.backwards')}
                    </p>
                  )}
                </div>
              );
            })}
            {open && (
              <button
                type="button"
                className="secondary"
                aria-label={t('addOns.hours.addOn', { day: name })}
                onClick={() => {
                  const last = ranges[ranges.length - 1]!;
                  const start = last[1] === '24:00' ? '23:00' : last[1];
                  set(day, [...ranges, [start, '24:00']]);
                }}
              >
                {t('addOns.hours.add')}
              </button>
            )}
          </div>
        );
      })}
      <button type="button" className="secondary" onClick={() => onChange(weekJson(Object.fromEntries(WEEK.map((d) => [d, week.mon])) as unknown as Week))}>
        {t('addOns.hours.copyMonday')}
      </button>
    </fieldset>
  );
}

/** Every IANA zone the browser knows (the value kept in when the browser does not know it). */
export function timeZoneOptions(current: string): string[] {
  const all = new Set(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []);
  all.add('UTC');
  if (current) all.add(current);
  return [...all].sort();
}
