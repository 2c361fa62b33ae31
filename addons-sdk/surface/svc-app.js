// svc-app.js: the SDK's surface helper, for an add-on's pages (plain ES module, no build step,
// no dependencies). `svc-addon init` copies it into a surface; `svc-addon check` warns when a
// surface's copy differs from the SDK's. Load it from the page's own files:
//
//   import { connect } from './svc-app.js';
//   const app = connect({ key: 'my-notes' });          // the add-on's key (addon.json)
//   const count = await app.action('count');           // an action, wherever the page runs
//   const page = await app.records('notes').list({ filter: { title: { like: 'a%' } }, sort: '-created_at' });
//
// Where the page runs decides how it talks to the instance (docs/addons.md, Surfaces):
// - framed in the dashboard (a `dashboard-page`: a sandboxed frame, opaque origin, no session):
//   actions go through the dashboard's action bridge (postMessage), called with the staff
//   member's session; the public API cannot be called from there (its `Origin` is `null`).
// - on a mapped domain (a `public-page` at its own host name) or any page with an origin of its
//   own: the public API with the app key from `<meta name="svc-app">`: actions and endpoints.
// Every failure is a SvcError with the instance's `code`, `message`, `params` and `status`.
// A guest's own rows (an endpoint with `identity`): `app.claim(ref, values)` opens a customer
// session, which every later public API call of this connection carries.

export const VERSION = '1';

/** A refusal or failure, as the instance (or the bridge) answered it. */
export class SvcError extends Error {
  constructor(code, message, params, status) {
    super(message || code);
    this.name = 'SvcError';
    this.code = code;
    this.params = params || {};
    this.status = status === undefined ? null : status;
  }
}

/** `<meta name="svc-app" content='{"appKey":…,"apiBase":…}'>`, which the instance writes into every HTML file it serves. */
export function readConfig(doc = globalThis.document) {
  const meta = doc && doc.querySelector('meta[name="svc-app"]');
  if (!meta) return null;
  try {
    const value = JSON.parse(meta.getAttribute('content') || '');
    if (value && typeof value.apiBase === 'string' && (value.appKey === null || typeof value.appKey === 'string')) return value;
  } catch {
    /* not JSON: no configuration */
  }
  return null;
}

/**
 * How this page reaches the instance: `bridge` (a sandboxed frame: the dashboard's action
 * bridge), `public` (an origin of its own: the public API), `none` (a sandboxed page opened on
 * its own, e.g. a surface's bundle URL in a tab: nothing can be called).
 */
export function detectMode(win = globalThis) {
  const opaque = win.origin === 'null' || (win.location && win.location.origin === 'null');
  if (!opaque) return 'public';
  return win.parent && win.parent !== win ? 'bridge' : 'none';
}

/** `…/api/v1` or `…/api/v1/public` → the public API's base, without a trailing slash. */
function publicBase(apiBase) {
  const base = apiBase.replace(/\/+$/, '');
  return base.endsWith('/public') ? base : `${base}/public`;
}

/**
 * A list query as the public API spells it: `filter: { status: 'open', seats: { gte: 2 },
 * id: { in: [1, 2] }, note: { null: true } }` → `filter[status]=open&filter[seats][gte]=2…`;
 * `sort` an array or `-a,b`; `limit`, `cursor`, `search`, `fields` (array or comma list).
 */
export function listParams(query = {}) {
  const params = new URLSearchParams();
  const filter = query.filter || {};
  for (const column of Object.keys(filter)) {
    const cond = filter[column];
    const pairs = cond !== null && typeof cond === 'object' && !Array.isArray(cond) ? Object.entries(cond) : [['eq', cond]];
    for (const [op, value] of pairs) {
      if (op === 'eq' && value === null) params.append(`filter[${column}][null]`, 'true');
      else params.append(`filter[${column}][${op}]`, Array.isArray(value) ? value.map(String).join(',') : String(value));
    }
  }
  if (query.sort !== undefined) params.set('sort', Array.isArray(query.sort) ? query.sort.join(',') : String(query.sort));
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  if (query.cursor) params.set('cursor', query.cursor);
  if (query.search) params.set('search', query.search);
  if (query.fields !== undefined) params.set('fields', Array.isArray(query.fields) ? query.fields.join(',') : String(query.fields));
  return params;
}

/** The dashboard's action bridge: `{type: 'svc-action', id, name, input}` up, `{type: 'svc-action-result', id, ok, data | error}` back. */
function bridge(win, timeoutMs) {
  const pending = new Map();
  let next = 0;
  win.addEventListener('message', (event) => {
    const m = event.data;
    if (event.source !== win.parent || !m || m.type !== 'svc-action-result' || !pending.has(m.id)) return;
    const call = pending.get(m.id);
    pending.delete(m.id);
    clearTimeout(call.timer);
    if (m.ok) call.resolve(m.data === undefined ? null : m.data);
    else {
      const e = m.error || {};
      call.reject(new SvcError(e.code || 'BRIDGE_FAILED', e.message, e.params, e.status));
    }
  });
  return (name, input) =>
    new Promise((resolve, reject) => {
      const id = `svc-${++next}`;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new SvcError('BRIDGE_TIMEOUT', `No answer from the dashboard to action ${name} in ${Math.round(timeoutMs / 1000)} s.`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      win.parent.postMessage({ type: 'svc-action', id, name, input: input === undefined ? null : input }, '*');
    });
}

/**
 * The page's connection to the instance. `key`: the add-on's key (addon.json), which names its
 * actions and prefixes its endpoint refs. Options for tests and unusual pages: `config`
 * (instead of the meta tag), `mode`, `fetch`, `window`, `timeoutMs` (bridge calls, default 30 s).
 */
export function connect(options = {}) {
  const win = options.window || globalThis;
  const key = options.key;
  if (typeof key !== 'string' || !key) throw new TypeError('connect({ key }): the add-on key of addon.json.');
  const config = options.config || readConfig(win.document);
  const mode = options.mode || detectMode(win);
  const doFetch = options.fetch || ((...args) => win.fetch(...args));
  const callBridge = mode === 'bridge' ? bridge(win, options.timeoutMs || 30_000) : null;
  /** The customer session `claim` opened (`X-Svc-Public-Session`), or null. */
  let session = null;

  const notHere = (what) => {
    if (mode === 'bridge')
      return new SvcError('SURFACE_FRAMED', `${what}: a page framed in the dashboard reaches the instance through its actions only (app.action).`);
    if (mode === 'none')
      return new SvcError('SURFACE_NOT_PUBLISHED', `${what}: this page has no origin of its own; publish it on a mapped domain, or place it in the dashboard.`);
    return new SvcError('SURFACE_NOT_CONFIGURED', `${what}: the page has no <meta name="svc-app"> (the instance writes it when it serves the page).`);
  };

  /** One public API call: JSON in, the parsed answer and its response out; a non-2xx answer throws SvcError. */
  async function request(method, path, body) {
    if (mode !== 'public' || !config) throw notHere(`${method} ${path}`);
    const headers = { accept: 'application/json' };
    if (config.appKey) headers.authorization = `Bearer ${config.appKey}`;
    if (session) headers['x-svc-public-session'] = session;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res;
    try {
      res = await doFetch(`${publicBase(config.apiBase)}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      throw new SvcError('NETWORK', `Could not reach the instance: ${e && e.message ? e.message : e}`);
    }
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    if (!res.ok) {
      const e = (json && json.error) || {};
      throw new SvcError(e.code || `HTTP_${res.status}`, e.message || `${res.status} ${res.statusText || ''}`.trim(), e.params, res.status);
    }
    return { json, res };
  }

  const refOf = (ref) => `${key}-${ref}`;
  const one = (json) => (json && typeof json === 'object' && 'data' in json ? json.data : json);

  return {
    key,
    mode,
    appKey: config ? config.appKey : null,
    apiBase: config ? config.apiBase : null,

    /** Calls one of the add-on's actions; resolves with its result. */
    async action(name, input) {
      if (callBridge) return callBridge(name, input);
      const { json } = await request('POST', `/apps/${encodeURIComponent(key)}/actions/${encodeURIComponent(name)}`, { input: input === undefined ? null : input });
      return json && json.data ? (json.data.result === undefined ? null : json.data.result) : null;
    },

    /** One of the add-on's public endpoints by its `ref` in addon.json (the instance names it `<key>-<ref>`). Public pages only. */
    records(ref) {
      const base = `/records/${encodeURIComponent(refOf(ref))}`;
      const row = (id) => `${base}/${encodeURIComponent(String(id))}`;
      return {
        /** `{rows, cursor}` whatever the endpoint's shape; `cursor` (or null) fetches the next page. */
        async list(query = {}) {
          const params = listParams(query).toString();
          const { json, res } = await request('GET', `${base}${params ? `?${params}` : ''}`);
          if (Array.isArray(json)) return { rows: json, cursor: res.headers.get('x-next-cursor') };
          if (json && Array.isArray(json.data)) return { rows: json.data, cursor: json.cursor || null };
          return { rows: json && json.data ? [json.data] : [], cursor: null };
        },
        async get(id) {
          return one((await request('GET', row(id))).json);
        },
        async create(values) {
          return one((await request('POST', base, { values })).json);
        },
        async update(id, values) {
          return one((await request('PATCH', row(id), { values })).json);
        },
        async remove(id) {
          await request('DELETE', row(id));
        },
      };
    },

    /** A booking endpoint's free and full times on `date` (YYYY-MM-DD) for `party` guests. Public pages only. */
    async availability(ref, { date, party }) {
      const q = new URLSearchParams({ date, party: String(party) });
      return one((await request('GET', `/availability/${encodeURIComponent(refOf(ref))}?${q}`)).json);
    },

    /**
     * Opens a customer session on an endpoint with `identity` (its `ref` in addon.json) with the
     * values that identify the guest (e.g. `{code, email}`); later calls carry it, so
     * `records(ref)` reads and changes that guest's rows only. Resolves `{session, expiresAt}`.
     * Public pages only.
     */
    async claim(ref, values) {
      const data = one((await request('POST', '/claim', { ref: refOf(ref), values })).json);
      session = data && typeof data.session === 'string' ? data.session : null;
      return data;
    },

    /** Forgets the customer session `claim` opened (it ends on the instance when it expires). */
    endSession() {
      session = null;
    },

    /** Any other public API call (`/config`…), path relative to the public API base. */
    request: async (method, path, body) => (await request(method, path, body)).json,
  };
}
