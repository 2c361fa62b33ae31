// The booking widget: vanilla JS, no build step. It reads its app key and the public API's base
// from <meta name="svc-app" content='{"appKey":"…","apiBase":"…"}'>, which the instance puts in
// when it serves this page.
const ENDPOINT = 'table-booking-bookings';

function config() {
  const meta = document.querySelector('meta[name="svc-app"]');
  try {
    const value = JSON.parse(meta ? meta.getAttribute('content') || '' : '');
    if (value && typeof value.appKey === 'string' && typeof value.apiBase === 'string') return value;
  } catch {
    /* fall through */
  }
  return null;
}

/** `…/api/v1` or `…/api/v1/public` → the `/public` base of the public API. */
function publicBase(apiBase) {
  const base = apiBase.replace(/\/+$/, '');
  return base.endsWith('/public') ? base : `${base}/public`;
}

const MESSAGES = {
  PUBLIC_SLOT_FULL: 'Sorry, that time has just been taken. Please pick another one.',
  PUBLIC_SLOT_BUSY: 'Someone else is booking that time right now. Please try again in a moment.',
  PUBLIC_RATE_LIMITED: 'Too many tries. Please wait a minute and try again.',
  PUBLIC_KEY_INVALID: 'Online booking is not available right now.',
};

function errorText(body, status) {
  const error = body && body.error;
  if (error && MESSAGES[error.code]) return MESSAGES[error.code];
  if (error && error.code === 'PUBLIC_WRITE_REFUSED' && error.params && error.params.column)
    return `Please check the ${error.params.column.replace('_', ' ')}.`;
  if (error && typeof error.message === 'string') return error.message;
  return `Something went wrong (${status}). Please try again.`;
}

const $ = (id) => document.getElementById(id);
const localDate = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

function start() {
  const cfg = config();
  const form = $('tb-form');
  const times = $('tb-times');
  const hint = $('tb-times-hint');
  const submit = $('tb-submit');
  const errorBox = $('tb-error');
  const dateInput = $('tb-date');
  const partyInput = $('tb-party');
  let chosen = null;
  let request = 0;

  const showError = (text) => {
    errorBox.textContent = text;
    errorBox.hidden = !text;
  };
  if (!cfg) {
    showError('This page is not set up for booking (no app key).');
    form.querySelectorAll('input, button').forEach((el) => (el.disabled = true));
    return;
  }
  const base = publicBase(cfg.apiBase);
  const headers = { authorization: `Bearer ${cfg.appKey}` };
  const today = new Date();
  dateInput.min = localDate(today);
  dateInput.value = localDate(today);

  const refreshSubmit = () => {
    submit.disabled = !(chosen && $('tb-name').value.trim() && $('tb-email').value.includes('@'));
  };

  let shown = '';
  /** Loads the day's times for the party; `force` reloads what is shown (after a failed booking). */
  async function loadTimes(force) {
    const date = dateInput.value;
    const party = Number(partyInput.value) || 1;
    // A change event that changes nothing (the party field losing focus) keeps the chosen time.
    if (force !== true && shown === `${date}|${party}`) return;
    shown = `${date}|${party}`;
    chosen = null;
    refreshSubmit();
    times.querySelectorAll('.tb-time').forEach((b) => b.remove());
    times.disabled = true;
    if (!date) return;
    hint.textContent = 'Loading free times…';
    hint.hidden = false;
    const mine = ++request;
    times.setAttribute('aria-busy', 'true');
    let res;
    let body = null;
    try {
      res = await fetch(`${base}/availability/${ENDPOINT}?date=${encodeURIComponent(date)}&party=${party}`, { headers });
      body = await res.json().catch(() => null);
    } catch {
      if (mine === request) {
        shown = '';
        hint.textContent = 'Could not reach the booking service. Please try again.';
        times.setAttribute('aria-busy', 'false');
      }
      return;
    }
    if (mine !== request) return;
    times.setAttribute('aria-busy', 'false');
    if (!res.ok) {
      shown = '';
      hint.textContent = errorText(body, res.status);
      return;
    }
    const slots = (body && body.data) || [];
    const free = slots.filter((s) => s.state === 'free');
    hint.textContent = slots.length === 0 ? 'Closed on that day.' : free.length === 0 ? 'No free times on that day.' : '';
    hint.hidden = hint.textContent === '';
    for (const slot of slots) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'tb-time';
      b.textContent = slot.time;
      b.disabled = slot.state !== 'free';
      b.setAttribute('aria-pressed', 'false');
      b.addEventListener('click', () => {
        times.querySelectorAll('.tb-time').forEach((x) => x.setAttribute('aria-pressed', 'false'));
        b.setAttribute('aria-pressed', 'true');
        chosen = slot.time;
        refreshSubmit();
      });
      times.appendChild(b);
    }
    times.disabled = free.length === 0;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!chosen) return;
    showError('');
    submit.disabled = true;
    const values = {
      booked_at: `${dateInput.value}T${chosen}`,
      party: Number(partyInput.value) || 1,
      name: $('tb-name').value.trim(),
      email: $('tb-email').value.trim(),
      locale: (navigator.language || '').slice(0, 35) || null,
    };
    try {
      const res = await fetch(`${base}/records/${ENDPOINT}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ values }),
      });
      const body = await res.json().catch(() => null);
      if (res.status !== 201) {
        showError(errorText(body, res.status));
        await loadTimes(true);
        return;
      }
      $('tb-code').textContent = body.data.code;
      $('tb-when').textContent = `${values.party} ${values.party === 1 ? 'guest' : 'guests'} on ${dateInput.value} at ${chosen}.`;
      form.hidden = true;
      $('tb-done').hidden = false;
    } catch {
      showError('Could not reach the booking service. Please try again.');
    } finally {
      refreshSubmit();
    }
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
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
