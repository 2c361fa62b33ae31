// The booking widget: vanilla JS, no build step. What it shares with the manage-my-booking page
// (the connection to the instance through the SDK's surface helper, the venue, dates and times in
// the visitor's language) is in booking.js.
import { BOOKINGS, addDays, connectApp, errorText, formatDay, formatTime, loadVenue, onTimePicked, showTimes, todayIn } from './booking.js';

const $ = (id) => document.getElementById(id);

function start() {
  const app = connectApp();
  const form = $('tb-form');
  const times = $('tb-times');
  const hint = $('tb-times-hint');
  const submit = $('tb-submit');
  const errorBox = $('tb-error');
  const dateInput = $('tb-date');
  const partyInput = $('tb-party');
  let chosen = null;
  let request = 0;
  let busy = false;

  const showError = (text) => {
    errorBox.textContent = text;
    errorBox.hidden = !text;
  };
  if (!app) {
    showError('This page is not set up for booking (no app key).');
    form.querySelectorAll('input, button').forEach((el) => (el.disabled = true));
    return;
  }
  let venue = { name: '', timeZone: 'UTC', windowDays: 60, maxParty: 12 };

  /** The day picker's bounds on the venue's clock: today there, up to the booking window. */
  const bound = () => {
    const today = todayIn(venue.timeZone);
    dateInput.min = today;
    dateInput.max = addDays(today, venue.windowDays);
    if (!dateInput.value || dateInput.value < today) dateInput.value = today;
  };
  bound();

  const refreshSubmit = () => {
    submit.disabled = busy || !(chosen && $('tb-name').value.trim() && $('tb-email').value.includes('@'));
  };

  let shownDate = '';
  let shownParty = 0;
  /** Loads the day's times for the party; `force` reloads what is shown (after a failed booking). */
  async function loadTimes(force) {
    const date = dateInput.value;
    const party = Number(partyInput.value) || 1;
    // A change event that changes nothing (the party field losing focus) keeps the chosen time.
    if (force !== true && shownDate === date && shownParty === party) return;
    const newDay = shownDate !== date;
    shownDate = date;
    shownParty = party;
    // A new party keeps the times on screen until the new answer: the party field's change
    // event fires as it loses focus, that is, on the very tap on a time, which must land on the
    // button it was aimed at (and be kept if that time is still free for the new party).
    // Nothing above the buttons moves either (a hint shown there would push them from under the tap).
    const keep = !newDay && force !== true && times.querySelector('.tb-time') !== null;
    if (!keep) {
      chosen = null;
      times.querySelectorAll('.tb-time').forEach((b) => b.remove());
      times.disabled = true;
      hint.textContent = 'Loading free times…';
      hint.hidden = false;
    }
    if (!date) return;
    busy = true;
    refreshSubmit();
    const mine = ++request;
    times.setAttribute('aria-busy', 'true');
    let slots;
    try {
      slots = (await app.availability(BOOKINGS, { date, party })) || [];
    } catch (err) {
      if (mine === request) {
        shownDate = '';
        busy = false;
        hint.textContent = errorText(err);
        hint.hidden = false;
        times.setAttribute('aria-busy', 'false');
        refreshSubmit();
      }
      return;
    }
    if (mine !== request) return;
    busy = false;
    times.setAttribute('aria-busy', 'false');
    const free = slots.filter((s) => s.state === 'free');
    let note = slots.length === 0 ? 'Closed on that day.' : free.length === 0 ? 'No free times on that day.' : '';
    if (chosen && !free.some((s) => s.time === chosen)) {
      note = `${formatTime(chosen)} is not free for ${party} ${party === 1 ? 'guest' : 'guests'}. Please pick another time.`;
      chosen = null;
    }
    hint.textContent = note;
    hint.hidden = note === '';
    showTimes(times, slots, chosen);
    refreshSubmit();
  }

  onTimePicked(times, (time) => {
    chosen = time;
    refreshSubmit();
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!chosen || busy) return;
    showError('');
    submit.disabled = true;
    const values = {
      booked_at: `${dateInput.value}T${chosen}`,
      party: Number(partyInput.value) || 1,
      name: $('tb-name').value.trim(),
      email: $('tb-email').value.trim(),
      locale: (navigator.language || '').slice(0, 35) || null,
    };
    let booked;
    try {
      booked = await app.records(BOOKINGS).create(values);
    } catch (err) {
      showError(errorText(err));
      refreshSubmit();
      // A time taken meanwhile: show the day as it is now.
      if (err && typeof err.status === 'number') await loadTimes(true);
      return;
    }
    const code = booked.code;
    $('tb-code').textContent = code;
    $('tb-when').textContent = `${values.party} ${values.party === 1 ? 'guest' : 'guests'} on ${formatDay(dateInput.value)} at ${formatTime(chosen)}.`;
    $('tb-manage').href = `manage.html?code=${encodeURIComponent(code)}`;
    form.hidden = true;
    $('tb-done').hidden = false;
    $('tb-done-title').focus();
    refreshSubmit();
  });

  $('tb-again').addEventListener('click', () => {
    $('tb-done').hidden = true;
    form.hidden = false;
    loadTimes(true);
  });
  dateInput.addEventListener('change', () => loadTimes());
  partyInput.addEventListener('change', () => loadTimes());
  $('tb-name').addEventListener('input', refreshSubmit);
  $('tb-email').addEventListener('input', refreshSubmit);
  loadTimes();

  // The venue's name, clock and largest party: the times above are on its clock already.
  loadVenue(app).then((v) => {
    venue = v;
    if (v.name) {
      $('tb-title').textContent = `Book a table at ${v.name}`;
      document.title = `Book a table · ${v.name}`;
    }
    partyInput.max = String(v.maxParty);
    const visitorZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const zone = $('tb-zone');
    zone.textContent = visitorZone === v.timeZone ? '' : `Times are the venue's local time (${v.timeZone.replace(/_/g, ' ')}).`;
    zone.hidden = zone.textContent === '';
    const before = dateInput.value;
    bound();
    if (dateInput.value !== before) loadTimes();
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
