import { defineAddon, type AddonContext, type BeforeWriteEvent, type Json, type Row } from '@svc/addons-sdk';

/**
 * Table booking's server code. It runs in the instance's sandbox (no Node API, only `ctx`);
 * the booking rules themselves (slots, capacity, the window, the confirmation e-mail) are the
 * public API's, declared on the endpoints in addon.json.
 */

const setting = (ctx: AddonContext, name: string, fallback: number): number => {
  const value = ctx.settings[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
};
const text = (ctx: AddonContext, name: string, fallback: string): string => {
  const value = ctx.settings[name];
  return typeof value === 'string' && value.trim() !== '' ? value : fallback;
};
const field = (input: Json, name: string): Json | undefined =>
  input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, Json>)[name] : undefined;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** What the owner marks a booking as from the day view; a new booking is `booked`. */
export const STATUSES = ['booked', 'arrived', 'no-show'] as const;

/** `YYYY-MM-DD` + n days, on the calendar alone (no clock, no time zone). */
export function addDays(date: string, n: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** `2026-05-01T19:30:00`, `2026-05-01 19:30:00` (as a dialect reads it back) → `19:30`. */
const timeOf = (value: Json): string => (typeof value === 'string' ? value.replace(' ', 'T').slice(11, 16) : '');

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
    /**
     * What the guest's pages show of the venue (the app key may call it): its name, its clock,
     * the largest party booked online and until when a booking can be changed. Nothing else of
     * the settings, and no count.
     */
    venue: (ctx: AddonContext) => ({
      name: text(ctx, 'venueName', 'Our restaurant'),
      timeZone: text(ctx, 'timeZone', 'UTC'),
      maxParty: setting(ctx, 'maxParty', 12),
      windowDays: setting(ctx, 'windowDays', 60),
      cancelBeforeMinutes: setting(ctx, 'cancelBeforeMinutes', 120),
    }),

    /** Staff only. Counts for the venue's screens: upcoming bookings and guests, in all and from a given day (`{from: 'YYYY-MM-DD'}`). */
    summary: async (ctx: AddonContext, input: Json) => {
      const given = field(input, 'from');
      const from = typeof given === 'string' ? given : new Date().toISOString().slice(0, 10);
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

    /**
     * Staff only: the owner's day view (`{date: 'YYYY-MM-DD'}`, on the venue's clock): the day's
     * bookings by time with party, name, e-mail, code and status, and the day's guests.
     */
    day: async (ctx: AddonContext, input: Json) => {
      const given = field(input, 'date');
      if (typeof given !== 'string' || !DAY.test(given) || Number.isNaN(Date.parse(`${given}T00:00:00Z`))) throw new Error('date must be YYYY-MM-DD');
      const rows: Row[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const res = await ctx.db.list('bookings', {
          where: { booked_at: { gte: `${given}T00:00:00`, lt: `${addDays(given, 1)}T00:00:00` } },
          sort: ['booked_at', 'id'],
          limit: 500,
          ...(cursor ? { cursor } : {}),
        });
        rows.push(...res.rows);
        if (!res.next) break;
        cursor = res.next;
      }
      const bookings = rows.map((r) => ({
        id: r.id ?? null,
        time: timeOf(r.booked_at ?? null),
        party: typeof r.party === 'number' ? r.party : 0,
        name: r.name ?? '',
        email: r.email ?? '',
        code: r.code ?? '',
        status: typeof r.status === 'string' && (STATUSES as readonly string[]).includes(r.status) ? r.status : 'booked',
      }));
      return {
        date: given,
        venue: text(ctx, 'venueName', 'Our restaurant'),
        timeZone: text(ctx, 'timeZone', 'UTC'),
        guests: bookings.filter((b) => b.status !== 'no-show').reduce((sum, b) => sum + b.party, 0),
        bookings,
      };
    },

    /** Staff only: marks one booking (`{id, status}`) as booked, arrived or a no-show. */
    setStatus: async (ctx: AddonContext, input: Json) => {
      const id = field(input, 'id');
      const status = field(input, 'status');
      if (typeof id !== 'number' || !Number.isInteger(id)) throw new Error('id must be a booking id');
      if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status)) throw new Error(`status must be one of ${STATUSES.join(', ')}`);
      const row = await ctx.db.update('bookings', id, { status });
      return { id: row.id ?? id, status: row.status ?? status };
    },
  },
});
