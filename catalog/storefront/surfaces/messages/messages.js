// The messages page, a dashboard-page: the dashboard frames it in a sandboxed iframe (an opaque
// origin, no cookies), so it cannot call the instance itself. The SDK's surface helper
// (svc-app.js) asks the dashboard, which calls the app's staff-only actions with the signed-in
// person's session.
import { connect } from './svc-app.js';

const app = connect({ key: 'storefront' });

const $ = (id) => document.getElementById(id);
const when = (value) => {
  const d = new Date(typeof value === 'string' && !/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? `${value.replace(' ', 'T')}Z` : value);
  return Number.isNaN(d.getTime()) ? String(value) : d.toLocaleString();
};

function start() {
  const list = $('sm-list');
  const status = $('sm-status');
  const more = $('sm-more');
  const unread = $('sm-unread');
  let cursor = null;
  let request = 0;

  function item(m) {
    const li = document.createElement('li');
    li.className = 'sm-item';
    li.dataset.id = String(m.id);
    li.dataset.read = String(m.read === true || m.read === 1);
    const h = document.createElement('h2');
    h.textContent = m.name;
    const meta = document.createElement('p');
    meta.className = 'sm-meta';
    const mail = document.createElement('a');
    mail.href = `mailto:${m.email}`;
    mail.textContent = m.email;
    meta.append(mail, ` · ${when(m.created_at)}`);
    const body = document.createElement('p');
    body.className = 'sm-body';
    body.textContent = m.message;
    const button = document.createElement('button');
    button.type = 'button';
    const label = () => {
      const read = li.dataset.read === 'true';
      button.textContent = read ? 'Mark as unread' : 'Mark as read';
      button.setAttribute('aria-label', `${button.textContent}: message from ${m.name}`);
    };
    label();
    button.addEventListener('click', async () => {
      button.disabled = true;
      const read = li.dataset.read !== 'true';
      try {
        await app.action('markRead', { id: m.id, read });
        li.dataset.read = String(read);
        label();
        status.textContent = read ? `Marked the message from ${m.name} as read.` : `Marked the message from ${m.name} as unread.`;
      } catch (err) {
        status.textContent = `Could not change the message: ${err.message}`;
      } finally {
        button.disabled = false;
      }
    });
    li.append(h, meta, body, button);
    return li;
  }

  async function load(next) {
    const mine = ++request;
    list.setAttribute('aria-busy', 'true');
    status.textContent = 'Loading messages…';
    more.hidden = true;
    try {
      const input = { unread: unread.checked, ...(next && cursor ? { cursor } : {}) };
      const page = await app.action('listMessages', input);
      if (mine !== request) return;
      if (!next) list.replaceChildren();
      for (const m of page.messages || []) list.appendChild(item(m));
      cursor = page.next || null;
      more.hidden = !cursor;
      const n = list.children.length;
      status.textContent = n === 0 ? (unread.checked ? 'No unread messages.' : 'No messages yet.') : `${n} ${n === 1 ? 'message' : 'messages'}.`;
    } catch (err) {
      if (mine === request) status.textContent = `Could not load the messages: ${err.message}`;
    } finally {
      if (mine === request) list.setAttribute('aria-busy', 'false');
    }
  }

  unread.addEventListener('change', () => load(false));
  $('sm-reload').addEventListener('click', () => load(false));
  more.addEventListener('click', () => load(true));
  load(false);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
