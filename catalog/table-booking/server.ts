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

// Bookings are stored in UTC (the public API turns a guest's time on the venue's clock into its
// instant); the owner's day is a day on the venue's clock. Intl is the sandbox's only clock maths.

/** The calendar fields of an instant on `timeZone`'s clock. */
function wallFields(ms: number, timeZone: string): { date: string; time: string; asUtc: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  const date = `${get('year')}-${get('month')}-${get('day')}`;
  const time = `${get('hour')}:${get('minute')}`;
  return { date, time, asUtc: Date.parse(`${date}T${time}:${get('second')}Z`) };
}

/** The instant midnight starts `date` on `timeZone`'s clock (its offset looked up twice, for a DST edge). */
export function startOfDay(date: string, timeZone: string): number {
  const guess = Date.parse(`${date}T00:00:00Z`);
  const offset = (ms: number) => wallFields(ms, timeZone).asUtc - Math.floor(ms / 1000) * 1000;
  return guess - offset(guess - offset(guess));
}

/** A stored datetime (UTC, with or without a zone) → its instant. */
const instantOfStored = (value: Json): number => {
  const text = typeof value === 'string' ? value.trim().replace(' ', 'T') : '';
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
};
/** An instant as the naive UTC datetime the data API's filters take. */
const utcWire = (ms: number): string => new Date(ms).toISOString().slice(0, 19);

const zoneOf = (ctx: AddonContext): string => {
  const zone = text(ctx, 'timeZone', 'UTC');
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
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
    /**
     * What the guest's pages show of the venue (the app key may call it): its name, its clock,
     * the largest party booked online and until when a booking can be changed. Nothing else of
     * the settings, and no count.
     */
    venue: (ctx: AddonContext) => ({
      name: text(ctx, 'venueName', 'Our restaurant'),
      timeZone: zoneOf(ctx),
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
      if (typeof given !== 'string' || !DAY.test(given) || Number.isNaN(Date.parse(`${given}T00:00:00Z`)))
        ctx.refuse(400, 'BOOKING_DATE_INVALID', 'The day must be a date written YYYY-MM-DD.', { date: typeof given === 'string' ? given : null });
      const timeZone = zoneOf(ctx);
      const rows: Row[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const res = await ctx.db.list('bookings', {
          where: { booked_at: { gte: utcWire(startOfDay(given, timeZone)), lt: utcWire(startOfDay(addDays(given, 1), timeZone)) } },
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
        time: wallFields(instantOfStored(r.booked_at ?? null), timeZone).time,
        party: typeof r.party === 'number' ? r.party : 0,
        name: r.name ?? '',
        email: r.email ?? '',
        code: r.code ?? '',
        status: typeof r.status === 'string' && (STATUSES as readonly string[]).includes(r.status) ? r.status : 'booked',
      }));
      return {
        date: given,
        venue: text(ctx, 'venueName', 'Our restaurant'),
        timeZone,
        guests: bookings.filter((b) => b.status !== 'no-show').reduce((sum, b) => sum + b.party, 0),
        bookings,
      };
    },

    /**
     * Staff only: marks one booking (`{id, status}`) as booked, arrived or a no-show. Bad input is
     * refused with a 4xx and a message the day view shows as it is (AO34).
     */
    setStatus: async (ctx: AddonContext, input: Json) => {
      const id = field(input, 'id');
      const status = field(input, 'status');
      if (typeof id !== 'number' || !Number.isInteger(id)) ctx.refuse(400, 'BOOKING_ID_INVALID', 'Give the id of a booking (a whole number).');
      if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status))
        ctx.refuse(400, 'BOOKING_STATUS_INVALID', `A booking's status is one of ${STATUSES.join(', ')}.`, {
          status: typeof status === 'string' ? status : null,
        });
      if (!(await ctx.db.get('bookings', id))) ctx.refuse(404, 'BOOKING_NOT_FOUND', `There is no booking ${id}: it may have been cancelled.`, { id });
      const row = await ctx.db.update('bookings', id, { status });
      return { id: row.id ?? id, status: row.status ?? status };
    },
  },
});
