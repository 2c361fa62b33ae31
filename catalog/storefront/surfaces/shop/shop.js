// The shop page: vanilla JS, no build step. It reads its app key and the public API's base from
// <meta name="svc-app" content='{"appKey":"…","apiBase":"…"}'>, which the instance puts in when
// it serves this page, and calls the app's two endpoints and its `shop` action with that key.
const APP = 'storefront';
const PRODUCTS = `${APP}-products`;
const CONTACT = `${APP}-contact`;
const PAGE = 24;

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
  PUBLIC_RATE_LIMITED: 'Too many tries. Please wait a minute and try again.',
  PUBLIC_KEY_INVALID: 'The shop is not available right now.',
};

function errorText(body, status) {
  const error = body && body.error;
  if (error && MESSAGES[error.code]) return MESSAGES[error.code];
  if (error && error.code === 'PUBLIC_WRITE_REFUSED' && error.params && error.params.column) return `Please check the ${error.params.column}.`;
  if (error && typeof error.message === 'string') return error.message;
  return `Something went wrong (${status}). Please try again.`;
}

const $ = (id) => document.getElementById(id);

function start() {
  const cfg = config();
  const grid = $('sf-grid');
  const status = $('sf-status');
  const more = $('sf-more');
  const form = $('sf-form');
  const send = $('sf-send');
  const errorBox = $('sf-error');
  const sent = $('sf-sent');
  const showError = (text) => {
    errorBox.textContent = text;
    errorBox.hidden = !text;
  };
  if (!cfg) {
    status.textContent = 'This page is not set up (no app key).';
    grid.setAttribute('aria-busy', 'false');
    document.querySelectorAll('input, select, textarea, button').forEach((el) => (el.disabled = true));
    return;
  }
  const base = publicBase(cfg.apiBase);
  const headers = { authorization: `Bearer ${cfg.appKey}` };
  let price = (value) => String(value);

  // The shop's name and currency come from the app's settings, through its `shop` action.
  fetch(`${base}/apps/${APP}/actions/shop`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' })
    .then((res) => (res.ok ? res.json() : null))
    .then((body) => {
      const shop = body && body.data && body.data.result;
      if (!shop) return;
      if (shop.name) {
        $('sf-title').textContent = shop.name;
        document.title = shop.name;
      }
      try {
        const format = new Intl.NumberFormat(document.documentElement.lang || undefined, { style: 'currency', currency: shop.currency });
        price = (value) => format.format(Number(value));
        grid.querySelectorAll('.sf-price').forEach((el) => (el.textContent = price(el.dataset.value)));
      } catch {
        /* an unknown currency code: plain numbers */
      }
    })
    .catch(() => undefined);

  function card(product) {
    const li = document.createElement('li');
    li.className = 'sf-card';
    if (product.image_url) {
      const img = document.createElement('img');
      img.src = product.image_url;
      img.alt = '';
      img.loading = 'lazy';
      // An image the page may not load (its host is not allowed) is left out, not shown broken.
      img.addEventListener('error', () => img.remove());
      li.appendChild(img);
    }
    const h = document.createElement('h3');
    h.textContent = product.name;
    li.appendChild(h);
    if (product.description) {
      const p = document.createElement('p');
      p.textContent = product.description;
      li.appendChild(p);
    }
    const p = document.createElement('p');
    p.className = 'sf-price';
    p.dataset.value = String(product.price);
    p.textContent = price(product.price);
    li.appendChild(p);
    return li;
  }

  let request = 0;
  let cursor = null;
  /** Loads the first page for the search and order (or the next page with `next`). */
  async function load(next) {
    const mine = ++request;
    const q = $('sf-q').value.trim();
    const params = new URLSearchParams({ limit: String(PAGE), sort: `${$('sf-order').value},id` });
    if (q) params.set('search', q);
    if (next && cursor) params.set('cursor', cursor);
    if (!next) cursor = null;
    grid.setAttribute('aria-busy', 'true');
    status.textContent = 'Loading products…';
    more.hidden = true;
    let res;
    let body = null;
    try {
      res = await fetch(`${base}/records/${PRODUCTS}?${params}`, { headers });
      body = await res.json().catch(() => null);
    } catch {
      if (mine === request) {
        status.textContent = 'Could not reach the shop. Please try again.';
        grid.setAttribute('aria-busy', 'false');
      }
      return;
    }
    if (mine !== request) return;
    grid.setAttribute('aria-busy', 'false');
    if (!res.ok) {
      status.textContent = errorText(body, res.status);
      return;
    }
    const rows = (body && body.data) || [];
    if (!next) grid.replaceChildren();
    for (const product of rows) grid.appendChild(card(product));
    cursor = (body && body.cursor) || null;
    more.hidden = !cursor;
    const shown = grid.children.length;
    status.textContent =
      shown === 0 ? (q ? `No products match “${q}”.` : 'No products yet.') : `${shown} ${shown === 1 ? 'product' : 'products'}${q ? ` for “${q}”` : ''}.`;
  }

  let typing = null;
  $('sf-q').addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => load(false), 250);
  });
  $('sf-search').addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(typing);
    load(false);
  });
  $('sf-order').addEventListener('change', () => load(false));
  more.addEventListener('click', () => load(true));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    showError('');
    sent.textContent = '';
    const values = { name: $('sf-name').value.trim(), email: $('sf-email').value.trim(), message: $('sf-message').value.trim() };
    if (!values.name || !values.email.includes('@') || !values.message) {
      showError('Please give your name, your e-mail address and a message.');
      return;
    }
    send.disabled = true;
    try {
      const res = await fetch(`${base}/records/${CONTACT}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ values }),
      });
      const body = await res.json().catch(() => null);
      if (res.status !== 201) {
        showError(errorText(body, res.status));
        return;
      }
      form.reset();
      sent.textContent = 'Thank you: your message is sent. We will answer by e-mail.';
    } catch {
      showError('Could not reach the shop. Please try again.');
    } finally {
      send.disabled = false;
    }
  });

  load(false);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
