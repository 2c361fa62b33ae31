import { defineAddon, type AddonContext, type BeforeWriteEvent, type Json } from '@svc/addons-sdk';

/**
 * Table booking's server code. It runs in the instance's sandbox (no Node API, only `ctx`);
 * the booking rules themselves (slots, capacity, the window, the confirmation e-mail) are the
 * public API's, declared on the endpoints in addon.json.
 */

const setting = (ctx: AddonContext, name: string, fallback: number): number => {
  const value = ctx.settings[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
};

export default defineAddon({
  hooks: {
    /** Before every write of a booking: a tidy name, and parties larger than the venue books online refused. */
    'bookings.beforeWrite': (ctx: AddonContext, event: BeforeWriteEvent) => {
      if (event.op === 'delete') return undefined;
      const values = { ...event.values };
      if (typeof values.name === 'string') {
        const name = values.name.trim().replace(/\s+/g, ' ');
        if (event.op === 'insert' && name === '') return { refuse: 'Please give a name for the booking.' };
        values.name = name;
      }
      const maxParty = setting(ctx, 'maxParty', 12);
      if (typeof values.party === 'number' && values.party > maxParty)
        return { refuse: `We book parties of up to ${maxParty} online; please call us for a larger table.` };
      return { values };
    },
  },
  actions: {
    /** Counts for the venue's screens: upcoming bookings and guests, in all and from a given day (`{from: 'YYYY-MM-DD'}`). */
    summary: async (ctx: AddonContext, input: Json) => {
      const from =
        input && typeof input === 'object' && !Array.isArray(input) && typeof input.from === 'string' ? input.from : new Date().toISOString().slice(0, 10);
      let bookings = 0;
      let guests = 0;
      let cursor: string | undefined;
      // At most 20 pages of 500: the sandbox allows 100 host calls per call.
      for (let page = 0; page < 20; page++) {
        const res = await ctx.db.list('bookings', { where: { booked_at: { gte: `${from}T00:00:00` } }, limit: 500, ...(cursor ? { cursor } : {}) });
        for (const row of res.rows) {
          bookings += 1;
          guests += typeof row.party === 'number' ? row.party : 0;
        }
        if (!res.next) break;
        cursor = res.next;
      }
      return { from, bookings, guests, venue: typeof ctx.settings.venueName === 'string' ? ctx.settings.venueName : null };
    },
  },
});
