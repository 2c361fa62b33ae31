import { afterEach, describe, expect, it } from 'vitest';
import { bookingEndpoints, publicFixture, seedBooking, type PublicFixture } from '../public-api/testing.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { connectionsRef } from './provides.js';

/** A plugin whose part of a connection cannot be removed while `state.fail` holds. */
function stubbornPlugin(state: { fail: boolean }) {
  return definePlugin({
    name: 'stubborn',
    version: '1.0.0',
    description: 'Refuses to let go of a connection (test).',
    requires: ['connections'],
    setup: (kernel) => {
      kernel.plugin(connectionsRef).onRemove(async () => {
        if (state.fail) throw new Error('cannot remove this part now');
        return {};
      });
    },
  });
}

/** Rows the meta store still keeps about a connection, per table, read straight from the store. */
async function leftOver(f: PublicFixture, connectionId: string): Promise<Record<string, number>> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const db = f.inst.app.kernel.db as any;
  const count = async (table: string, column = 'connection_id') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb: any) => eb.fn.countAll().as('n'))
          .where(column, '=', connectionId)
          .executeTakeFirst()
      ).n,
    );
  return {
    connections: await count('connections', 'id'),
    schema_snapshots: await count('schema_snapshots'),
    schema_heads: await count('schema_heads'),
    schema_overrides: await count('schema_overrides'),
    pages: await count('pages'),
    public_scopes: await count('public_scopes'),
    public_sessions: await count('public_sessions'),
    data_undo: await count('data_undo'),
  };
}

const metas: Array<'sqlite' | 'postgres' | 'mysql'> = ['sqlite'];
if (await databaseAvailable('postgres')) metas.push('postgres');
if (await databaseAvailable('mysql')) metas.push('mysql');

describe.each(metas)('deleting a connection (meta store on %s)', (meta) => {
  let f: PublicFixture;
  afterEach(async () => f?.close());

  /** Everything other plugins keep about the fixture's connection: snapshot, overrides, pages, endpoints, grants, a session, an undo token. */
  async function useEverything(): Promise<{ widget: string; server: string }> {
    const keys = await bookingEndpoints(f);
    const overrides = await f.api('PUT', `/connections/${f.connectionId}/schema/overrides`, { tables: [{ table: 'products', label: 'Goods' }] });
    expect(overrides.status, overrides.text).toBe(200);
    const pages = await f.api('POST', `/connections/${f.connectionId}/generate`, { tables: ['products'] });
    expect(pages.status, pages.text).toBe(200);
    const written = await f.api('POST', `/data/${f.connectionId}/products`, { values: { name: 'Kept for undo', price: '1.00' } });
    expect(written.status, written.text).toBe(201);
    await seedBooking(f, '2026-03-10 18:00:00', 2, { code: 'AAAA-1111', email: 'ann@example.com' });
    const claim = await f.pub('POST', '/public/claim', {
      key: keys.widget,
      body: { ref: 'my-booking', values: { code: 'AAAA-1111', email: 'ann@example.com' } },
    });
    expect(claim.status, claim.text).toBe(200);
    return keys;
  }

  it('removes what the instance keeps about it, keeps the keys without their grants, and counts it in the audit trail', async () => {
    f = await publicFixture('sqlite', { meta });
    const keys = await useEverything();
    const before = await leftOver(f, f.connectionId);
    for (const [table, n] of Object.entries(before)) expect(n, table).toBeGreaterThan(0);

    const gone = await f.api('DELETE', `/connections/${f.connectionId}`);
    expect(gone.status, gone.text).toBe(200);

    expect(await leftOver(f, f.connectionId)).toEqual(Object.fromEntries(Object.keys(before).map((t) => [t, 0])));
    expect((await f.api('GET', '/public-scopes')).body.data.scopes.filter((s: { connectionId: string }) => s.connectionId === f.connectionId)).toEqual([]);
    const listed = (await f.api('GET', '/public-keys')).body.data.keys as Array<{ kind: string; grants: unknown[] }>;
    expect(listed.map((k) => k.grants)).toEqual([[], []]);
    // The keys now reach nothing: the same answer as any endpoint they were never granted.
    expect((await f.pub('GET', '/public/records/tables', { key: keys.server })).body.error.code).toBe('PUBLIC_REF_NOT_FOUND');

    const audit = await f.api('GET', '/audit?action=connections.delete');
    expect(audit.body.data.entries[0].diff.removed).toEqual({
      schemaSnapshots: before.schema_snapshots,
      schemaOverrides: before.schema_overrides,
      pages: before.pages,
      publicEndpoints: before.public_scopes,
      publicKeyGrants: 4,
      publicSessions: before.public_sessions,
      undoEntries: before.data_undo,
    });
  });

  it('removes nothing when one part cannot be removed: the connection stays, and deleting again works', async () => {
    const state = { fail: true };
    f = await publicFixture('sqlite', { meta, plugins: [stubbornPlugin(state)] });
    await useEverything();
    const before = await leftOver(f, f.connectionId);

    const refused = await f.api('DELETE', `/connections/${f.connectionId}`);
    expect(refused.status, refused.text).toBe(500);
    expect(await leftOver(f, f.connectionId)).toEqual(before);
    expect((await f.api('GET', `/connections/${f.connectionId}`)).status).toBe(200);

    state.fail = false;
    expect((await f.api('DELETE', `/connections/${f.connectionId}`)).status).toBe(200);
    expect((await leftOver(f, f.connectionId)).connections).toBe(0);
  });
});
