// The shop page: vanilla JS, no build step. The SDK's surface helper (svc-app.js) reads the app key
// and the public API's base from <meta name="svc-app">, which the instance puts in when it serves
// this page, and calls the app's endpoints (products, their images, orders, contact) and its
// `shop` action with that key.
import { connect } from './svc-app.js';

/** The endpoints' refs in addon.json. */
const PRODUCTS = 'products';
const IMAGES = 'images';
const ORDERS = 'orders';
const CONTACT = 'contact';
const PAGE = 24;

const MESSAGES = {
  PUBLIC_RATE_LIMITED: 'Too many tries. Please wait a minute and try again.',
  PUBLIC_KEY_INVALID: 'The shop is not available right now.',
  NETWORK: 'Could not reach the shop. Please try again.',
};

/** What to tell the visitor about a failed call (a SvcError of the helper): ours for known codes, else the instance's or the app's message. */
function errorText(err) {
  if (err && MESSAGES[err.code]) return MESSAGES[err.code];
  if (err && err.code === 'PUBLIC_WRITE_REFUSED' && err.params && typeof err.params.column === 'string') return `Please check the ${err.params.column}.`;
  if (err && typeof err.message === 'string' && err.message) return err.message;
  return 'Something went wrong. Please try again.';
}

const $ = (id) => document.getElementById(id);

function start() {
  const app = connect({ key: 'storefront' });
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
  if (app.mode !== 'public' || !app.appKey) {
    status.textContent = 'This page is not set up (no app key).';
    grid.setAttribute('aria-busy', 'false');
    document.querySelectorAll('input, select, textarea, button').forEach((el) => (el.disabled = true));
    return;
  }
  let price = (value) => String(value);

  // The shop's name and currency come from the app's settings, through its `shop` action.
  app
    .action('shop')
    .then((shop) => {
      if (!shop) return;
      if (shop.name) {
        $('sf-title').textContent = shop.name;
        document.title = shop.name;
      }
      try {
        const format = new Intl.NumberFormat(document.documentElement.lang || undefined, { style: 'currency', currency: shop.currency });
        price = (value) => format.format(Number(value));
        grid.querySelectorAll('.sf-price').forEach((el) => (el.textContent = price(el.dataset.value)));
        renderCart();
      } catch {
        /* an unknown currency code: plain numbers */
      }
    })
    .catch(() => undefined);

  /** The product images uploaded through the instance, as data: URLs (the page's CSP allows those, and no other host). */
  async function loadImages(products) {
    const ids = products.filter((p) => p.image_updated_at).map((p) => p.id);
    if (ids.length === 0) return;
    try {
      const { rows } = await app.records(IMAGES).list({ filter: { product_id: { in: ids } }, limit: ids.length });
      for (const image of rows) {
        const b64 = image.data && typeof image.data === 'object' ? image.data.$binary : image.data;
        const img = grid.querySelector(`.sf-card[data-id="${Number(image.product_id)}"] img`);
        if (img && typeof b64 === 'string') img.src = `data:${image.content_type};base64,${b64}`;
      }
    } catch {
      /* the cards stay without their images */
    }
  }

  function card(product) {
    const li = document.createElement('li');
    li.className = 'sf-card';
    li.dataset.id = String(product.id);
    if (product.image_updated_at) {
      const img = document.createElement('img');
      img.alt = '';
      img.width = 400;
      img.height = 300;
      img.addEventListener('error', () => img.remove());
      li.appendChild(img);
    } else if (product.image_url) {
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
    const add = document.createElement('button');
    add.type = 'button';
    add.className = 'sf-add';
    add.textContent = 'Add to order';
    add.setAttribute('aria-label', `Add ${product.name} to the order`);
    add.addEventListener('click', () => addToCart(product));
    li.appendChild(add);
    return li;
  }

  // --- the order request: a cart on this page, sent as one order row ---------------------------
  /** product id → {product, quantity}, in the order they were added. */
  const cart = new Map();
  const ordered = $('sf-ordered');
  function addToCart(product) {
    const line = cart.get(product.id);
    if (line) line.quantity = Math.min(99, line.quantity + 1);
    else cart.set(product.id, { product, quantity: 1 });
    ordered.textContent = `${product.name} is in your order (${cart.get(product.id).quantity}).`;
    renderCart();
  }
  function renderCart() {
    const lines = $('sf-cart-lines');
    lines.replaceChildren();
    let total = 0;
    for (const [id, line] of cart) {
      total += Math.round(Number(line.product.price) * 100) * line.quantity;
      const li = document.createElement('li');
      li.className = 'sf-line';
      const name = document.createElement('span');
      name.className = 'sf-line-name';
      name.textContent = `${line.product.name} · ${price(line.product.price)}`;
      const label = document.createElement('label');
      const qty = document.createElement('input');
      qty.type = 'number';
      qty.min = '1';
      qty.max = '99';
      qty.value = String(line.quantity);
      label.append(`Quantity of ${line.product.name}`, qty);
      qty.addEventListener('change', () => {
        const n = Math.round(Number(qty.value));
        line.quantity = Number.isFinite(n) ? Math.min(99, Math.max(1, n)) : 1;
        renderCart();
      });
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = `Remove ${line.product.name}`;
      remove.addEventListener('click', () => {
        cart.delete(id);
        ordered.textContent = `${line.product.name} is no longer in your order.`;
        renderCart();
      });
      li.append(name, label, remove);
      lines.appendChild(li);
    }
    const empty = cart.size === 0;
    $('sf-cart-empty').hidden = !empty;
    $('sf-cart-form').hidden = empty;
    $('sf-cart-total').hidden = empty;
    $('sf-cart-total').textContent = `Total: ${price(total / 100)}`;
  }

  $('sf-cart-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const orderError = $('sf-order-error');
    const fail = (text) => {
      orderError.textContent = text;
      orderError.hidden = !text;
    };
    fail('');
    const values = {
      name: $('sf-order-name').value.trim(),
      email: $('sf-order-email').value.trim(),
      phone: $('sf-order-phone').value.trim() || null,
      note: $('sf-order-note').value.trim() || null,
      items: [...cart.values()].map((l) => ({ product_id: l.product.id, quantity: l.quantity })),
    };
    if (!values.name || !values.email.includes('@')) {
      fail('Please give your name and your e-mail address.');
      return;
    }
    const sendButton = $('sf-order-send');
    sendButton.disabled = true;
    try {
      const order = await app.records(ORDERS).create(values);
      cart.clear();
      renderCart();
      $('sf-cart-form').reset();
      ordered.textContent = `Thank you: order request ${order.id} is sent (total ${price(order.total)}). We will confirm it by e-mail.`;
    } catch (err) {
      fail(errorText(err));
    } finally {
      sendButton.disabled = false;
    }
  });

  let request = 0;
  let cursor = null;
  /** Loads the first page for the search and order (or the next page with `next`). */
  async function load(next) {
    const mine = ++request;
    const q = $('sf-q').value.trim();
    const query = { limit: PAGE, sort: `${$('sf-order').value},id`, search: q || undefined, cursor: next ? cursor : null };
    if (!next) cursor = null;
    grid.setAttribute('aria-busy', 'true');
    status.textContent = 'Loading products…';
    more.hidden = true;
    let page;
    try {
      page = await app.records(PRODUCTS).list(query);
    } catch (err) {
      if (mine === request) {
        status.textContent = errorText(err);
        grid.setAttribute('aria-busy', 'false');
      }
      return;
    }
    if (mine !== request) return;
    grid.setAttribute('aria-busy', 'false');
    const rows = page.rows;
    if (!next) grid.replaceChildren();
    for (const product of rows) grid.appendChild(card(product));
    loadImages(rows);
    cursor = page.cursor || null;
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
      await app.records(CONTACT).create(values);
      form.reset();
      sent.textContent = 'Thank you: your message is sent. We will answer by e-mail.';
    } catch (err) {
      showError(errorText(err));
    } finally {
      send.disabled = false;
    }
  });

  load(false);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
