import { useId, type ReactNode } from 'react';
import { t } from '../../i18n/t';
import type { Scope } from './api';

type Booking = NonNullable<Scope['booking']>;
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
type Day = (typeof DAYS)[number];

/** The booking rules as the form holds them: text as typed, turned into the definition's values on save. */
export interface BookingDraft {
  on: boolean;
  timeColumn: string;
  partyColumn: string;
  capacity: string;
  slotMinutes: string;
  windowDays: string;
  cancelBeforeMinutes: string;
  emailColumn: string;
  codeColumn: string;
  localeColumn: string;
  hours: Record<Day, string>;
  timeZone: string;
}

const hoursText = (intervals: string[][] | undefined) => (intervals ?? []).map(([a, b]) => `${a}-${b}`).join(', ');

export function bookingDraft(scope: Scope, firstColumn: string): BookingDraft {
  const b = scope.booking;
  return {
    on: b !== null,
    timeColumn: b?.timeColumn ?? firstColumn,
    partyColumn: b?.partyColumn ?? '',
    capacity: String(b?.capacity ?? 20),
    slotMinutes: String(b?.slotMinutes ?? 30),
    windowDays: String(b?.windowDays ?? 60),
    cancelBeforeMinutes: String(b?.cancelBeforeMinutes ?? 120),
    emailColumn: b?.emailColumn ?? '',
    codeColumn: b?.codeColumn ?? '',
    localeColumn: b?.localeColumn ?? '',
    hours: Object.fromEntries(DAYS.map((d) => [d, hoursText(b?.openingHours[d])])) as Record<Day, string>,
    timeZone: scope.timeZone,
  };
}

/** A whole number as a number; anything else as typed, so the server names what is wrong with it. */
const whole = (s: string): number | string => (/^\s*-?\d+\s*$/.test(s) ? Number(s) : s);
const column = (s: string) => (s === '' ? null : s);

/** `12:00-14:30, 18:00-22:00` as the definition's intervals (a day left empty is closed). */
function intervals(text: string): Array<[string, string]> {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const [a = '', b = ''] = part.split('-').map((x) => x.trim());
      return [a, b];
    });
}

export function bookingBody(d: BookingDraft): Booking | null {
  if (!d.on) return null;
  const openingHours: Booking['openingHours'] = {};
  for (const day of DAYS) {
    const list = intervals(d.hours[day]);
    if (list.length) openingHours[day] = list;
  }
  return {
    timeColumn: d.timeColumn,
    partyColumn: column(d.partyColumn),
    capacity: whole(d.capacity) as number,
    slotMinutes: whole(d.slotMinutes) as number,
    openingHours,
    windowDays: whole(d.windowDays) as number,
    cancelBeforeMinutes: whole(d.cancelBeforeMinutes) as number,
    emailColumn: column(d.emailColumn),
    codeColumn: column(d.codeColumn),
    localeColumn: column(d.localeColumn),
  };
}

/** Where the form shows an issue of `booking.…` (a day's hours as one field). */
export function bookingSpot(path: string): string {
  const [, key = '', day] = path.split('.');
  return key === 'openingHours' && day ? `booking:openingHours.${day}` : key ? `booking:${key}` : 'booking';
}

interface Props {
  draft: BookingDraft;
  onChange: (draft: BookingDraft) => void;
  columns: string[];
  /** The message and the id of its element for a spot (`booking:capacity`, `timeZone`). */
  error: (spot: string) => string | undefined;
  describedBy: (spot: string) => string | undefined;
  errorLine: (spot: string) => ReactNode;
}

/** The slot rules of an endpoint that takes bookings (PA10): time and party columns, capacity, slots, hours, windows. */
export function BookingFields({ draft, onChange, columns, error, describedBy, errorLine }: Props) {
  const id = useId();
  const set = (patch: Partial<BookingDraft>) => onChange({ ...draft, ...patch });
  const aria = (spot: string) => ({ 'aria-invalid': error(spot) ? true : undefined, 'aria-describedby': describedBy(spot) });
  const options = (optional: boolean, current: string) => (
    <>
      {optional && <option value={NONE}>{t('publicApi.booking.none')}</option>}
      {(current === '' || columns.includes(current) ? columns : [current, ...columns]).map((c) => (
        <option key={c} value={c}>
          {c}
        </option>
      ))}
    </>
  );
  const select = (key: 'timeColumn' | 'partyColumn' | 'emailColumn' | 'codeColumn' | 'localeColumn', optional: boolean) => (
    <div className="field">
      <label htmlFor={`${id}-${key}`}>{t(`publicApi.booking.${key}`)}</label>
      <select id={`${id}-${key}`} value={draft[key]} onChange={(e) => set({ [key]: e.target.value })} {...aria(`booking:${key}`)}>
        {options(optional, draft[key])}
      </select>
      {errorLine(`booking:${key}`)}
    </div>
  );
  const number = (key: 'capacity' | 'slotMinutes' | 'windowDays' | 'cancelBeforeMinutes') => (
    <div className="field">
      <label htmlFor={`${id}-${key}`}>{t(`publicApi.booking.${key}`)}</label>
      <input id={`${id}-${key}`} inputMode="numeric" value={draft[key]} onChange={(e) => set({ [key]: e.target.value })} {...aria(`booking:${key}`)} />
      {errorLine(`booking:${key}`)}
    </div>
  );

  return (
    <fieldset className="pa-group" aria-describedby={describedBy('booking')}>
      <legend>{t('publicApi.booking.title')}</legend>
      <label className="pa-check">
        <input type="checkbox" checked={draft.on} onChange={(e) => set({ on: e.target.checked })} />
        {t('publicApi.booking.on')}
      </label>
      <p className="hint">{t('publicApi.booking.hint')}</p>
      {errorLine('booking')}
      {draft.on && (
        <>
          <div className="pa-row">
            {select('timeColumn', false)}
            {select('partyColumn', true)}
            {number('capacity')}
            {number('slotMinutes')}
          </div>
          <div className="pa-row">
            {number('windowDays')}
            {number('cancelBeforeMinutes')}
            <div className="field">
              <label htmlFor={`${id}-tz`}>{t('publicApi.booking.timeZone')}</label>
              <input id={`${id}-tz`} value={draft.timeZone} onChange={(e) => set({ timeZone: e.target.value })} {...aria('timeZone')} />
              {errorLine('timeZone')}
            </div>
          </div>
          <div className="pa-row">
            {select('emailColumn', true)}
            {select('codeColumn', true)}
            {select('localeColumn', true)}
          </div>
          <fieldset className="pa-plain">
            <legend>{t('publicApi.booking.hours')}</legend>
            <p className="hint">{t('publicApi.booking.hoursHint')}</p>
            <div className="pa-row">
              {DAYS.map((day) => (
                <div className="field" key={day}>
                  <label htmlFor={`${id}-${day}`}>{t('publicApi.booking.day', { day })}</label>
                  <input
                    id={`${id}-${day}`}
                    value={draft.hours[day]}
                    onChange={(e) => set({ hours: { ...draft.hours, [day]: e.target.value } })}
                    {...aria(`booking:openingHours.${day}`)}
                  />
                  {errorLine(`booking:openingHours.${day}`)}
                </div>
              ))}
            </div>
            {errorLine('booking:openingHours')}
          </fieldset>
        </>
      )}
    </fieldset>
  );
}

/** The value of "no column" in the optional column lists. */
const NONE = '';
