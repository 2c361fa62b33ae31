// The manage-my-booking page: the guest opens their booking with its code and e-mail address
// (a customer session, POST /public/claim), then changes its day, time or party, or cancels it,
// up to the venue's cancellation window before the booking (after it the API answers
// PUBLIC_TOO_LATE and the page says to call).
import {
  MINE,
  BOOKINGS,
  addDays,
  config,
  errorText,
  formatDay,
  formatInstant,
  formatTime,
  instantOfStored,
  loadVenue,
  onTimePicked,
  publicBase,
  showTimes,
  todayIn,
  wallOf,
} from './booking.js';

const $ = (id) => document.getElementById(id);
const MINUTE = 60_000;

function start() {
  const cfg = config();
  const status = $('mb-status');
  const errorBox = $('mb-error');
  const showError = (text) => {
    errorBox.textContent = text;
    errorBox.hidden = !text;
  };
  if (!cfg) {
    showError('This page is not set up for booking (no app key).');
    document.querySelectorAll('input, button').forEach((el) => (el.disabled = true));
    return;
  }
  const base = publicBase(cfg.apiBase);
  const key = { authorization: `Bearer ${cfg.appKey}` };
  const venueReady = loadVenue(base, key);
  let venue = null;
  let session = null;
  let booking = null;
  let chosen = null;

  const given = new URLSearchParams(location.search).get('code');
  if (given) $('mb-code').value = given;
  ($('mb-code').value ? $('mb-email') : $('mb-code')).focus();

  const call = async (method, path, body) => {
    const headers = { ...key, ...(session ? { 'x-svc-public-session': session } : {}) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const answer = await res.json().catch(() => null);
    return { status: res.status, ok: res.ok, body: answer };
  };

  // The booking's day and time on the venue's clock (the API answers its instant in UTC).
  const dayOf = (row) => wallOf(instantOfStored(row.booked_at), venue.timeZone).date;
  const timeOf = (row) => wallOf(instantOfStored(row.booked_at), venue.timeZone).time;
  /** When changes close: the booking's time less the cancellation window. */
  const closesAt = (row) => instantOfStored(row.booked_at) - venue.cancelBeforeMinutes * MINUTE;

  function show(row) {
    booking = row;
    const party = Number(row.party);
    $('mb-booking-code').textContent = row.code;
    $('mb-when').textContent =
      `${party} ${party === 1 ? 'guest' : 'guests'} on ${formatDay(dayOf(row))} at ${formatTime(timeOf(row))}${venue.name ? `, at ${venue.name}` : ''}.`;
    $('mb-name').textContent = `Booked for ${row.name}.`;
    const closes = closesAt(row);
    const open = Date.now() < closes;
    $('mb-deadline').textContent = open
      ? `You can change or cancel it online until ${formatInstant(closes, venue.timeZone)}.`
      : 'It is too close to the time to change or cancel it online. Please call us.';
    $('mb-actions').hidden = !open;
    $('mb-edit').hidden = true;
    $('mb-change').setAttribute('aria-expanded', 'false');
    $('mb-confirm').hidden = true;
    $('mb-find').hidden = true;
    $('mb-booking').hidden = false;
  }

  $('mb-find').addEventListener('submit', async (event) => {
    event.preventDefault();
    showError('');
    const code = $('mb-code').value.trim();
    const email = $('mb-email').value.trim();
    if (!code || !email.includes('@')) {
      showError('Please give the booking code and your e-mail address.');
      return;
    }
    $('mb-open').disabled = true;
    status.textContent = 'Looking for your booking…';
    try {
      venue = await venueReady;
      const claimed = await call('POST', '/claim', { ref: MINE, values: { code, email } });
      if (!claimed.ok) {
        status.textContent = '';
        showError(claimed.status === 404 ? 'We found no booking with that code and e-mail address.' : errorText(claimed.body, claimed.status));
        return;
      }
      session = claimed.body.data.session;
      const mine = await call('GET', `/records/${MINE}`);
      const row = mine.ok && mine.body && Array.isArray(mine.body.data) ? mine.body.data.find((r) => r.code === code) || mine.body.data[0] : null;
      if (!row) {
        status.textContent = '';
        showError(mine.ok ? 'We found no booking with that code and e-mail address.' : errorText(mine.body, mine.status));
        return;
      }
      status.textContent = '';
      show(row);
      $('mb-booking-title').focus();
    } catch {
      status.textContent = '';
      showError('Could not reach the booking service. Please try again.');
    } finally {
      $('mb-open').disabled = false;
    }
  });

  // --- Changing ---------------------------------------------------------------------------
  const times = $('mb-times');
  const hint = $('mb-times-hint');
  const save = $('mb-save');
  let request = 0;
  const refreshSave = () => {
    save.disabled = !chosen;
  };

  async function loadTimes() {
    const date = $('mb-date').value;
    const party = Number($('mb-party').value) || 1;
    const mine = ++request;
    times.setAttribute('aria-busy', 'true');
    // Times already shown stay, and nothing above them moves, until the answer: a tap on one
    // (the party field's change event fires on that very tap) lands where it was aimed.
    if (!times.querySelector('.tb-time')) {
      hint.textContent = 'Loading free times…';
      hint.hidden = false;
    }
    // With the session, the guest's own booking does not count against the new time.
    const res = await call('GET', `/availability/${BOOKINGS}?date=${encodeURIComponent(date)}&party=${party}`).catch(() => null);
    if (mine !== request) return;
    times.setAttribute('aria-busy', 'false');
    if (!res || !res.ok) {
      hint.textContent = res ? errorText(res.body, res.status) : 'Could not reach the booking service. Please try again.';
      return;
    }
    const slots = res.body.data || [];
    const free = slots.filter((s) => s.state === 'free');
    if (chosen && !free.some((s) => s.time === chosen)) chosen = null;
    hint.textContent = slots.length === 0 ? 'Closed on that day.' : free.length === 0 ? 'No free times on that day.' : '';
    hint.hidden = hint.textContent === '';
    showTimes(times, slots, chosen);
    refreshSave();
  }
  onTimePicked(times, (time) => {
    chosen = time;
    refreshSave();
  });
  $('mb-date').addEventListener('change', () => {
    chosen = null;
    times.querySelectorAll('.tb-time').forEach((b) => b.remove());
    loadTimes();
  });
  $('mb-party').addEventListener('change', loadTimes);

  $('mb-change').addEventListener('click', () => {
    const opening = $('mb-edit').hidden;
    $('mb-edit').hidden = !opening;
    $('mb-confirm').hidden = true;
    $('mb-change').setAttribute('aria-expanded', String(opening));
    if (!opening) return;
    const today = todayIn(venue.timeZone);
    $('mb-date').min = today;
    $('mb-date').max = addDays(today, venue.windowDays);
    $('mb-date').value = dayOf(booking);
    $('mb-party').max = String(venue.maxParty);
    $('mb-party').value = String(booking.party);
    chosen = timeOf(booking);
    loadTimes();
    $('mb-date').focus();
  });

  $('mb-edit').addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!chosen) return;
    showError('');
    save.disabled = true;
    const values = { booked_at: `${$('mb-date').value}T${chosen}`, party: Number($('mb-party').value) || 1 };
    try {
      const res = await call('PATCH', `/records/${MINE}/${encodeURIComponent(booking.id)}`, { values });
      if (!res.ok) {
        showError(errorText(res.body, res.status));
        if (res.body && res.body.error && res.body.error.code !== 'PUBLIC_TOO_LATE') loadTimes();
        return;
      }
      show({ ...booking, ...res.body.data });
      status.textContent = 'Your booking is changed.';
      $('mb-booking-title').focus();
    } catch {
      showError('Could not reach the booking service. Please try again.');
    } finally {
      refreshSave();
    }
  });

  // --- Cancelling -------------------------------------------------------------------------
  $('mb-cancel').addEventListener('click', () => {
    $('mb-edit').hidden = true;
    $('mb-change').setAttribute('aria-expanded', 'false');
    $('mb-confirm-text').textContent = `Cancel your booking for ${booking.party} on ${formatDay(dayOf(booking))} at ${formatTime(timeOf(booking))}?`;
    $('mb-confirm').hidden = false;
    $('mb-confirm-no').focus();
  });
  $('mb-confirm-no').addEventListener('click', () => {
    $('mb-confirm').hidden = true;
    $('mb-cancel').focus();
  });
  $('mb-confirm-yes').addEventListener('click', async () => {
    showError('');
    $('mb-confirm-yes').disabled = true;
    try {
      const res = await call('DELETE', `/records/${MINE}/${encodeURIComponent(booking.id)}`);
      if (!res.ok) {
        showError(errorText(res.body, res.status));
        return;
      }
      $('mb-booking').hidden = true;
      status.textContent = `Your booking ${booking.code} is cancelled.`;
      booking = null;
      session = null;
    } catch {
      showError('Could not reach the booking service. Please try again.');
    } finally {
      $('mb-confirm-yes').disabled = false;
    }
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
