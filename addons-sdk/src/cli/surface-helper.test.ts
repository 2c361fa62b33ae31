import { describe, expect, it } from 'vitest';
import { connect, detectMode, listParams, SvcError } from '../../surface/svc-app.js';

describe('svc-app.js, the surface helper', () => {
  it('spells list queries as the public API reads them', () => {
    const q = listParams({
      filter: { status: 'open', seats: { gte: 2, lt: 9 }, id: { in: [1, 2] }, note: null },
      sort: ['-created_at', 'id'],
      limit: 20,
      search: 'x',
    });
    expect(decodeURIComponent(q.toString())).toBe(
      'filter[status][eq]=open&filter[seats][gte]=2&filter[seats][lt]=9&filter[id][in]=1,2&filter[note][null]=true&sort=-created_at,id&limit=20&search=x',
    );
  });

  it('knows where it runs: a sandboxed frame uses the bridge, an origin of its own the public API', () => {
    const top = { origin: 'https://book.example.com' } as unknown as Window;
    expect(detectMode(top)).toBe('public');
    const framed = { origin: 'null', parent: {} } as unknown as Window;
    expect(detectMode(framed)).toBe('bridge');
    const alone = { origin: 'null' } as unknown as Window;
    (alone as unknown as { parent: unknown }).parent = alone;
    expect(detectMode(alone)).toBe('none');
  });

  it('calls actions and endpoints of the public API with the app key, and throws the instance’s error', async () => {
    const calls: Array<{ url: string; init: RequestInit }> = [];
    const answers: Response[] = [
      Response.json({ data: { result: { notes: 3 } } }),
      Response.json({ data: [{ id: 1 }], page: { limit: 1, count: 1 }, cursor: 'c2' }),
      Response.json({ data: { id: 2, title: 'x' } }, { status: 201 }),
      Response.json({ error: { code: 'PUBLIC_QUERY_REFUSED', message: 'Not filterable.', params: { param: 'filter[x]' } } }, { status: 400 }),
    ];
    const fetch = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return answers.shift()!;
    }) as unknown as typeof globalThis.fetch;
    const app = connect({ key: 'my-notes', mode: 'public', config: { appKey: 'adm_pub_k', apiBase: 'https://i.example/api/v1/public' }, fetch });
    expect(await app.action('count')).toEqual({ notes: 3 });
    expect(calls[0]).toMatchObject({ url: 'https://i.example/api/v1/public/apps/my-notes/actions/count', init: { method: 'POST', body: '{"input":null}' } });
    expect((calls[0]!.init.headers as Record<string, string>)['authorization']).toBe('Bearer adm_pub_k');
    expect(await app.records('notes').list({ limit: 1 })).toEqual({ rows: [{ id: 1 }], cursor: 'c2' });
    expect(calls[1]!.url).toBe('https://i.example/api/v1/public/records/my-notes-notes?limit=1');
    expect(await app.records('notes').create({ title: 'x' })).toEqual({ id: 2, title: 'x' });
    const refused = await app
      .records('notes')
      .list({ filter: { x: 1 } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcError);
    expect(refused).toMatchObject({ code: 'PUBLIC_QUERY_REFUSED', status: 400, params: { param: 'filter[x]' } });
  });

  it('claims a customer session and sends it with every later call, until endSession', async () => {
    const calls: Array<{ url: string; init: RequestInit }> = [];
    const answers: Response[] = [
      Response.json({ error: { code: 'PUBLIC_CLAIM_FAILED', message: 'No such booking.' } }, { status: 404 }),
      Response.json({ data: { session: 'sess_1', expiresAt: 1 } }),
      Response.json({ data: [{ id: 7, code: 'AB' }] }),
      Response.json({ data: { id: 7, party: 3 } }),
      Response.json({ data: [{ time: '19:00', state: 'free' }] }),
    ];
    const fetch = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return answers.shift()!;
    }) as unknown as typeof globalThis.fetch;
    const app = connect({ key: 'table-booking', mode: 'public', config: { appKey: 'adm_pub_k', apiBase: 'https://i.example/api/v1' }, fetch });
    const header = (i: number) => (calls[i]!.init.headers as Record<string, string>)['x-svc-public-session'];
    await expect(app.claim('my-booking', { code: 'AB', email: 'x@example.com' })).rejects.toMatchObject({ status: 404, message: 'No such booking.' });
    expect(await app.claim('my-booking', { code: 'AB', email: 'x@example.com' })).toEqual({ session: 'sess_1', expiresAt: 1 });
    expect(calls[1]).toMatchObject({
      url: 'https://i.example/api/v1/public/claim',
      init: { body: '{"ref":"table-booking-my-booking","values":{"code":"AB","email":"x@example.com"}}' },
    });
    expect(header(1)).toBeUndefined();
    expect((await app.records('my-booking').list()).rows).toEqual([{ id: 7, code: 'AB' }]);
    expect(await app.records('my-booking').update(7, { party: 3 })).toEqual({ id: 7, party: 3 });
    expect([header(2), header(3)]).toEqual(['sess_1', 'sess_1']);
    expect(calls[3]).toMatchObject({ url: 'https://i.example/api/v1/public/records/table-booking-my-booking/7', init: { method: 'PATCH' } });
    app.endSession();
    expect(await app.availability('bookings', { date: '2026-12-02', party: 2 })).toEqual([{ time: '19:00', state: 'free' }]);
    expect(header(4)).toBeUndefined();
  });

  it('in a dashboard frame: actions through the bridge, records refused with a reason', async () => {
    const listeners: Array<(e: { source: unknown; data: unknown }) => void> = [];
    const parent = {
      postMessage(m: { id: string; name: string }) {
        const data =
          m.name === 'add'
            ? { type: 'svc-action-result', id: m.id, ok: false, error: { code: 'NOTE_TITLE_MISSING', message: 'A note needs a title.', status: 400 } }
            : { type: 'svc-action-result', id: m.id, ok: true, data: [1] };
        queueMicrotask(() => listeners.forEach((l) => l({ source: parent, data })));
      },
    };
    const win = { origin: 'null', parent, addEventListener: (_: string, l: (typeof listeners)[number]) => listeners.push(l) } as unknown as Window;
    const app = connect({ key: 'my-notes', window: win, config: { appKey: null, apiBase: 'x' } });
    expect(app.mode).toBe('bridge');
    expect(await app.action('recent')).toEqual([1]);
    await expect(app.action('add', {})).rejects.toMatchObject({ code: 'NOTE_TITLE_MISSING', status: 400 });
    await expect(app.records('notes').list()).rejects.toMatchObject({ code: 'SURFACE_FRAMED' });
  });
});
