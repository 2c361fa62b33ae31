// What the guest's pages of table booking share (the widget, index.html, and the manage-my-booking
// page, manage.html): the connection to the instance (the SDK's surface helper, svc-app.js, which
// reads the page's app key and API base), the venue (its name and clock, from the app's `venue`
// action), error texts, and dates and times in the visitor's language (Intl only).
import { connect } from './svc-app.js';

/** The endpoints' refs in addon.json. */
export const BOOKINGS = 'bookings';
export const MINE = 'my-booking';

/** The page's connection to the instance, or null when the page was not served by it (no app key). */
export function connectApp() {
  const app = connect({ key: 'table-booking' });
  return app.mode === 'public' && app.appKey ? app : null;
}

const MESSAGES = {
  PUBLIC_SLOT_FULL: 'Sorry, that time has just been taken. Please pick another one.',
  PUBLIC_SLOT_BUSY: 'Someone else is booking that time right now. Please try again in a moment.',
  PUBLIC_RATE_LIMITED: 'Too many tries. Please wait a minute and try again.',
  PUBLIC_KEY_INVALID: 'Online booking is not available right now.',
  PUBLIC_TOO_LATE: 'It is too close to the time to change this booking online. Please call us.',
  NETWORK: 'Could not reach the booking service. Please try again.',
};

/** What to tell the guest about a failed call (a SvcError of the helper): ours for known codes, else the instance's or the app's message. */
export function errorText(err) {
  if (err && MESSAGES[err.code]) return MESSAGES[err.code];
  if (err && err.code === 'PUBLIC_WRITE_REFUSED' && err.params && typeof err.params.column === 'string')
    return `Please check the ${err.params.column.replace('_', ' ')}.`;
  if (err && typeof err.message === 'string' && err.message) return err.message;
  return 'Something went wrong. Please try again.';
}

/**
 * The venue as the app's `venue` action gives it; the defaults when it cannot be reached. A
 * failed call is tried once more: the app's first call on a busy instance may find its sandbox
 * starting.
 */
export async function loadVenue(app) {
  const fallback = { name: '', timeZone: 'UTC', maxParty: 12, windowDays: 60, cancelBeforeMinutes: 120 };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const venue = await app.action('venue');
      if (!venue || typeof venue !== 'object') return fallback;
      return { ...fallback, ...venue, timeZone: validZone(venue.timeZone) ? venue.timeZone : 'UTC' };
    } catch (err) {
      // A refusal (4xx) will not change on a second try; a failure or the network may.
      if (err && typeof err.status === 'number' && err.status < 500) return fallback;
    }
  }
  return fallback;
}

function validZone(zone) {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return typeof zone === 'string';
  } catch {
    return false;
  }
}

/** The visitor's language, as the browser says it. */
export const language = () => navigator.language || undefined;

// Times of a slot are on the venue's clock ("19:30" on 2026-12-02 in the venue's zone). They are
// shown as that wall time in the visitor's language: formatted at UTC from a UTC date made of the
// same fields, so no clock of the visitor's shifts them.
const wall = (date, time = '00:00') => {
  const [y, m, d] = date.split('-').map(Number);
  const [hh, mm] = time.split(':').map(Number);
  return new Date(Date.UTC(y, m - 1, d, hh, mm));
};

/**
 * The day's slots as buttons in the fieldset `times` (the one in `chosen` pressed), in place of
 * those shown; a full slot is a disabled button. Answers how many are free.
 */
export function showTimes(times, slots, chosen) {
  times.querySelectorAll('.tb-time').forEach((b) => b.remove());
  for (const slot of slots) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'tb-time';
    b.dataset.time = slot.time;
    b.textContent = formatTime(slot.time);
    b.disabled = slot.state !== 'free';
    b.setAttribute('aria-pressed', String(slot.time === chosen));
    times.appendChild(b);
  }
  const free = slots.filter((s) => s.state === 'free').length;
  times.disabled = free === 0;
  return free;
}

/**
 * Calls `onPick(time)` for a tap on a free time of `times`, after pressing its button: one
 * listener for every button, those of an answer still on its way included.
 */
export function onTimePicked(times, onPick) {
  times.addEventListener('click', (event) => {
    const b = event.target instanceof Element ? event.target.closest('.tb-time') : null;
    if (!b || b.disabled) return;
    times.querySelectorAll('.tb-time').forEach((x) => x.setAttribute('aria-pressed', String(x === b)));
    onPick(b.dataset.time);
  });
}

/** "19:30" → "19:30" (en-GB, fr), "7:30 PM" (en-US). */
export function formatTime(time) {
  return new Intl.DateTimeFormat(language(), { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).format(wall('2000-01-01', time));
}

/** "2026-12-02" → "Wednesday 2 December 2026" (en-GB), "mercredi 2 décembre 2026" (fr). */
export function formatDay(date) {
  return new Intl.DateTimeFormat(language(), { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(wall(date));
}

/** An instant (ms) as a day and time on the venue's clock, in the visitor's language. */
export function formatInstant(ms, timeZone) {
  return new Intl.DateTimeFormat(language(), { dateStyle: 'full', timeStyle: 'short', timeZone }).format(new Date(ms));
}

/** The calendar fields of `ms` on the clock of `timeZone`. */
function fieldsIn(ms, timeZone) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (type) => Number(parts.find((p) => p.type === type).value);
  return { y: get('year'), m: get('month'), d: get('day'), h: get('hour') % 24, min: get('minute'), s: get('second') };
}

/** Today's date (YYYY-MM-DD) on the venue's clock. */
export function todayIn(timeZone, now = Date.now()) {
  const f = fieldsIn(now, timeZone);
  return `${f.y}-${String(f.m).padStart(2, '0')}-${String(f.d).padStart(2, '0')}`;
}

/** `YYYY-MM-DD` + n days. */
export function addDays(date, n) {
  const d = wall(date);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/**
 * A stored booking time → its instant (ms). The public API gives datetimes in UTC, without a
 * zone ("2026-12-02T18:30:00") or with one; a booking written as "2026-12-02T19:30" was a time on
 * the venue's clock, which the API turned into UTC.
 */
export function instantOfStored(value) {
  const text = String(value).trim().replace(' ', 'T');
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
}

/** An instant as a day (`YYYY-MM-DD`) and time (`HH:MM`) on the venue's clock. */
export function wallOf(ms, timeZone) {
  const f = fieldsIn(ms, timeZone);
  const two = (n) => String(n).padStart(2, '0');
  return { date: `${f.y}-${two(f.m)}-${two(f.d)}`, time: `${two(f.h)}:${two(f.min)}` };
}
