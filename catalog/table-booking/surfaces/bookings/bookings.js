// The owner's day view, a dashboard-page: the dashboard frames it in a sandboxed iframe (an
// opaque origin, no cookies), so the SDK's surface helper (svc-app.js) asks the dashboard to call
// the app's staff-only actions (`day`, `setStatus`) with the signed-in person's session. A
// refusal's message (ctx.refuse in server.ts) is shown as the app wrote it.
import { connect } from './svc-app.js';

const app = connect({ key: 'table-booking' });
const $ = (id) => document.getElementById(id);
const lang = () => navigator.language || undefined;
const wall = (date, time = '00:00') => {
  const [y, m, d] = date.split('-').map(Number);
  const [hh, mm] = time.split(':').map(Number);
  return new Date(Date.UTC(y, m - 1, d, hh, mm));
};
const addDays = (date, n) => {
  const d = wall(date);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};
/** Today on the venue's clock. */
const todayIn = (timeZone) => {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date());
  const get = (t) => parts.find((p) => p.type === t).value;
  return `${get('year')}-${get('month')}-${get('day')}`;
};
const formatDay = (date) =>
  new Intl.DateTimeFormat(lang(), { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(wall(date));
const formatTime = (time) => new Intl.DateTimeFormat(lang(), { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).format(wall('2000-01-01', time));
const STATUS_LABELS = { booked: 'Booked', arrived: 'Arrived', 'no-show': 'No-show' };

function start() {
  const list = $('bk-list');
  const status = $('bk-status');
  const dateInput = $('bk-date');
  let timeZone = 'UTC';
  let request = 0;

  function item(b) {
    const li = document.createElement('li');
    li.className = 'bk-item';
    li.dataset.status = b.status;
    const time = document.createElement('span');
    time.className = 'bk-time';
    time.textContent = formatTime(b.time);
    const party = document.createElement('span');
    party.className = 'bk-party';
    party.textContent = `${b.party} ${b.party === 1 ? 'guest' : 'guests'}`;
    const who = document.createElement('span');
    who.className = 'bk-who';
    const name = document.createElement('strong');
    name.textContent = b.name;
    const contact = document.createElement('span');
    contact.textContent = `${b.email} · ${b.code}`;
    who.append(name, contact);
    const label = document.createElement('label');
    const hidden = document.createElement('span');
    hidden.className = 'bk-visually-hidden';
    hidden.textContent = `Status of ${b.name} at ${formatTime(b.time)}`;
    const select = document.createElement('select');
    for (const [value, text] of Object.entries(STATUS_LABELS)) select.add(new Option(text, value, false, value === b.status));
    select.addEventListener('change', async () => {
      const next = select.value;
      select.disabled = true;
      try {
        await app.action('setStatus', { id: b.id, status: next });
        b.status = next;
        li.dataset.status = next;
        status.textContent = `${b.name} at ${formatTime(b.time)}: ${STATUS_LABELS[next]}.`;
      } catch (err) {
        select.value = b.status;
        status.textContent = err.message;
      } finally {
        select.disabled = false;
      }
    });
    label.append(hidden, select);
    li.append(time, party, who, label);
    return li;
  }

  async function show(date) {
    const mine = ++request;
    dateInput.value = date;
    $('bk-day').textContent = formatDay(date);
    list.setAttribute('aria-busy', 'true');
    status.textContent = 'Loading…';
    try {
      const day = await app.action('day', { date });
      if (mine !== request) return;
      if (day.venue) $('bk-title').textContent = `Bookings · ${day.venue}`;
      timeZone = day.timeZone || 'UTC';
      list.replaceChildren(...day.bookings.map(item));
      const n = day.bookings.length;
      status.textContent =
        n === 0 ? 'No bookings on this day.' : `${n} ${n === 1 ? 'booking' : 'bookings'}, ${day.guests} ${day.guests === 1 ? 'guest' : 'guests'}.`;
    } catch (err) {
      if (mine === request) status.textContent = err.message;
    } finally {
      if (mine === request) list.setAttribute('aria-busy', 'false');
    }
  }

  $('bk-prev').addEventListener('click', () => show(addDays(dateInput.value, -1)));
  $('bk-next').addEventListener('click', () => show(addDays(dateInput.value, 1)));
  $('bk-today').addEventListener('click', () => show(todayIn(timeZone)));
  dateInput.addEventListener('change', () => dateInput.value && show(dateInput.value));
  // The day to open with may be given (`?date=`); else today on the venue's clock once it is known.
  const given = new URLSearchParams(location.search).get('date');
  show(given && /^\d{4}-\d{2}-\d{2}$/.test(given) ? given : todayIn('UTC')).then(() => {
    if (!given && todayIn(timeZone) !== dateInput.value) show(todayIn(timeZone));
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
