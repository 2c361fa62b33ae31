// The manage-my-booking page: the guest opens their booking with its code and e-mail address
// (a customer session, POST /public/claim), then changes its day, time or party, or cancels it,
// up to the venue's cancellation window before the booking (after it the API answers
// PUBLIC_TOO_LATE and the page says to call). The SDK's surface helper carries the session.
import {
  MINE,
  BOOKINGS,
  addDays,
  connectApp,
  errorText,
  formatDay,
  formatInstant,
  formatTime,
  instantOfStored,
  loadVenue,
  onTimePicked,
  showTimes,
  todayIn,
  wallOf,
} from './booking.js';

const $ = (id) => document.getElementById(id);
const MINUTE = 60_000;

function start() {
  const app = connectApp();
  const status = $('mb-status');
  const errorBox = $('mb-error');
  const showError = (text) => {
    errorBox.textContent = text;
    errorBox.hidden = !text;
  };
  if (!app) {
    showError('This page is not set up for booking (no app key).');
    document.querySelectorAll('input, button').forEach((el) => (el.disabled = true));
    return;
  }
  const venueReady = loadVenue(app);
  let venue = null;
  let booking = null;
  let chosen = null;

  const given = new URLSearchParams(location.search).get('code');
  if (given) $('mb-code').value = given;
  ($('mb-code').value ? $('mb-email') : $('mb-code')).focus();

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
    const notFound = 'We found no booking with that code and e-mail address.';
    try {
      venue = await venueReady;
      await app.claim(MINE, { code, email });
      const { rows } = await app.records(MINE).list();
      const row = rows.find((r) => r.code === code) || rows[0];
      status.textContent = '';
      if (!row) {
        showError(notFound);
        return;
      }
      show(row);
      $('mb-booking-title').focus();
    } catch (err) {
      status.textContent = '';
      showError(err && err.status === 404 ? notFound : errorText(err));
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
    let slots;
    try {
      slots = (await app.availability(BOOKINGS, { date, party })) || [];
    } catch (err) {
      if (mine !== request) return;
      times.setAttribute('aria-busy', 'false');
      hint.textContent = errorText(err);
      hint.hidden = false;
      return;
    }
    if (mine !== request) return;
    times.setAttribute('aria-busy', 'false');
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
      const changed = await app.records(MINE).update(booking.id, values);
      show({ ...booking, ...changed });
      status.textContent = 'Your booking is changed.';
      $('mb-booking-title').focus();
    } catch (err) {
      showError(errorText(err));
      // Refused for its time (taken meanwhile): show the day as it is now; too late: nothing to pick.
      if (typeof err.status === 'number' && err.code !== 'PUBLIC_TOO_LATE') loadTimes();
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
      await app.records(MINE).remove(booking.id);
      $('mb-booking').hidden = true;
      status.textContent = `Your booking ${booking.code} is cancelled.`;
      booking = null;
      app.endSession();
    } catch (err) {
      showError(errorText(err));
    } finally {
      $('mb-confirm-yes').disabled = false;
    }
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
