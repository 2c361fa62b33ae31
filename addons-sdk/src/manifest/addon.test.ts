import { describe, expect, it } from 'vitest';
import { addonManifestSchema, parseAddonManifest, physicalTableName, publicRef, settingFormatProblem, type AddonManifestInput } from './addon.js';

const full: AddonManifestInput = {
  key: 'table-booking',
  name: 'Table booking',
  version: '1.2.3-beta.1',
  engine: '>=0.1.0 <1',
  description: 'Bookings for a restaurant.',
  author: 'Example Ltd',
  homepage: 'https://example.com/booking',
  capabilities: ['db', 'kv', 'mail.send', 'fetch'],
  tables: [
    {
      name: 'bookings',
      columns: [
        { name: 'id', type: 'integer', nullable: false, autoIncrement: true },
        { name: 'starts_at', type: 'datetime', nullable: false },
        { name: 'party', type: 'integer', default: 2 },
        { name: 'email', type: 'string', maxLength: 320 },
        { name: 'status', type: 'enum', values: ['open', 'cancelled'], default: 'open' },
        { name: 'code', type: 'string' },
      ],
      primaryKey: ['id'],
      indexes: [{ columns: ['starts_at'] }, { columns: ['code'], unique: true }],
    },
  ],
  endpoints: [
    {
      ref: 'bookings',
      table: 'bookings',
      methods: ['GET', 'POST', 'PATCH'],
      writable: ['starts_at', 'party', 'email'],
      filterable: ['status'],
      orderable: ['starts_at'],
      identity: ['email'],
      sensitive: ['email'],
      booking: {
        timeColumn: 'starts_at',
        partyColumn: 'party',
        capacity: 40,
        slotMinutes: 30,
        openingHours: { mon: [['12:00', '14:30']], sat: [['18:00', '23:00']] },
        emailColumn: 'email',
        codeColumn: 'code',
      },
    },
  ],
  surfaces: [
    { name: 'widget', kind: 'embed', title: 'Book a table' },
    { name: 'admin', kind: 'dashboard-page', entry: 'app/index.html', title: 'Bookings' },
  ],
  peak: 3,
  settings: {
    type: 'object',
    properties: {
      venue: { type: 'string', title: 'Venue name', maxLength: 100 },
      seats: { type: 'integer', minimum: 1, default: 40 },
      tone: { type: 'string', enum: ['formal', 'casual'] },
      clientId: { type: 'string' },
      clientSecret: { type: 'string', secret: true },
    },
    required: ['venue'],
  },
  connect: {
    kind: 'oauth2',
    authorizeUrl: 'https://accounts.example.com/authorize',
    tokenUrl: 'https://accounts.example.com/token',
    scopes: ['calendar'],
    clientIdSetting: 'clientId',
    clientSecretSetting: 'clientSecret',
  },
  outbound: ['api.example.com', '*.googleapis.com'],
  hooks: ['bookings.beforeWrite', 'bookings.afterWrite', 'schedule:0 6 * * *', 'schedule:*/30 * * * * *'],
  actions: ['cancel', 'send-reminder'],
  limits: { memoryMb: 32, cpuMs: 500 },
};

/** A copy of the full manifest with `change` applied to it. */
function variant(change: (m: Record<string, any>) => void): unknown {
  const m = structuredClone(full) as Record<string, any>;
  change(m);
  return m;
}

function problem(value: unknown): { path: string; message: string } {
  const result = parseAddonManifest(value);
  if (result.ok) throw new Error('expected the manifest to be refused');
  return { path: result.path, message: result.message };
}

describe('addon.json schema', () => {
  it('takes a full manifest and fills the defaults of a minimal one', () => {
    const result = parseAddonManifest(full);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.manifest.tables[0]!.columns[1]).toMatchObject({ nullable: false, autoIncrement: false, unique: false });
    const minimal = addonManifestSchema.parse({ key: 'ab', name: 'A', version: '0.0.1', engine: '*' });
    expect(minimal).toMatchObject({
      description: '',
      capabilities: [],
      tables: [],
      endpoints: [],
      surfaces: [],
      peak: 1,
      hooks: [],
      actions: [],
      outbound: [],
      limits: { memoryMb: 64, cpuMs: 200 },
      settings: { type: 'object', properties: {}, required: [] },
    });
  });

  it('keys are kebab-case, 2 to 40 characters, starting with a letter', () => {
    for (const key of ['ab', 'my-addon', 'a1-b2', 'x'.repeat(40)]) expect(parseAddonManifest({ ...full, key }).ok, key).toBe(true);
    for (const key of ['a', 'x'.repeat(41), 'My-addon', 'my_addon', 'my--addon', '-my', 'my-', '1up', 'my addon', ''])
      expect(problem({ ...full, key }).path, key).toBe('key');
    expect(physicalTableName('table-booking', 'bookings')).toBe('table_booking__bookings');
    expect(publicRef('table-booking', 'bookings')).toBe('table-booking-bookings');
  });

  it('refuses unknown fields and a version that is not semver', () => {
    expect(problem({ ...full, extra: 1 }).path).toBe('(root)');
    expect(problem({ ...full, version: '1.2' }).path).toBe('version');
    expect(problem(variant((m) => (m.surfaces[0].kind = 'popup'))).path).toBe('surfaces.0.kind');
  });

  it('an endpoint names one of the tables and its columns, with the path of the problem', () => {
    expect(problem(variant((m) => (m.endpoints[0].table = 'orders')))).toEqual({
      path: 'endpoints.0.table',
      message: "orders is not one of the add-on's tables.",
    });
    expect(problem(variant((m) => m.endpoints[0].filterable.push('nope')))).toEqual({
      path: 'endpoints.0.filterable.1',
      message: 'nope is not a column of bookings.',
    });
    expect(problem(variant((m) => (m.endpoints[0].sensitive = ['secret']))).path).toBe('endpoints.0.sensitive.0');
    expect(problem(variant((m) => m.endpoints.push({ ref: 'bookings', table: 'bookings', methods: ['GET'] }))).path).toBe('endpoints.1.ref');
    expect(problem(variant((m) => (m.endpoints[0].ref = 'a/b'))).path).toBe('endpoints.0.ref');
  });

  it("an endpoint's rules are checked as the instance will check them at install", () => {
    expect(problem(variant((m) => (m.endpoints[0].columns = ['id', 'starts_at'])))).toEqual({
      path: 'endpoints.0.writable.1',
      message: "party must be among the endpoint's columns.",
    });
    expect(problem(variant((m) => (m.endpoints[0].defaults = { nope: 1 }))).path).toBe('endpoints.0.defaults.nope');
    expect(problem(variant((m) => (m.endpoints[0].filters = [{ column: 'nope', op: 'eq', value: 1 }]))).path).toBe('endpoints.0.filters.0.column');
    const booking = { timeColumn: 'party', capacity: 10, slotMinutes: 30, openingHours: { mon: [['09:00', '17:00']] } };
    expect(problem(variant((m) => (m.endpoints[0].booking = booking)))).toEqual({
      path: 'endpoints.0.booking.timeColumn',
      message: 'party must hold a date and time.',
    });
    expect(problem(variant((m) => (m.endpoints[0].needsSession = true) && (m.endpoints[0].identity = [])))).toMatchObject({ path: 'endpoints.0.needsSession' });
  });

  it('tables: primary keys, indexes and types are checked', () => {
    expect(problem(variant((m) => (m.tables[0].primaryKey = ['nope']))).path).toBe('tables.0.columns.0.autoIncrement');
    expect(problem(variant((m) => ((m.tables[0].primaryKey = ['nope']), (m.tables[0].columns[0].autoIncrement = false)))).path).toBe('tables.0.primaryKey.0');
    expect(problem(variant((m) => (m.tables[0].indexes[0].columns = ['nope']))).path).toBe('tables.0.indexes.0.columns.0');
    expect(problem(variant((m) => (m.tables[0].columns[1].type = 'other'))).path).toBe('tables.0.columns.1.type');
    expect(problem(variant((m) => m.tables.push(structuredClone(m.tables[0])))).path).toBe('tables.1.name');
    expect(problem(variant((m) => (m.tables[0].name = 'Bookings'))).path).toBe('tables.0.name');
  });

  it('svc_instance is the instance column (D28): not declared, but an index may name it', () => {
    expect(problem(variant((m) => (m.tables[0].columns[1].name = 'svc_instance'))).path).toBe('tables.0.columns.1.name');
    expect(parseAddonManifest(variant((m) => (m.tables[0].indexes[0].columns = ['svc_instance', m.tables[0].columns[1].name]))).ok).toBe(true);
  });

  it('outbound hosts need the fetch capability, and are host names', () => {
    expect(problem(variant((m) => (m.capabilities = ['db'])))).toEqual({ path: 'outbound', message: 'outbound hosts need the fetch capability.' });
    expect(parseAddonManifest(variant((m) => ((m.capabilities = ['db']), (m.outbound = [])))).ok).toBe(true);
    for (const host of ['10.0.0.1', 'https://api.example.com', 'API.example.com', 'localhost'])
      expect(problem(variant((m) => (m.outbound = [host]))).path, host).toBe('outbound.0');
    expect(problem(variant((m) => m.capabilities.push('db'))).path).toBe('capabilities');
    expect(problem(variant((m) => m.capabilities.push('fs'))).path).toBe('capabilities.4');
  });

  it('hooks name a table of the add-on, a write phase, or a cron schedule', () => {
    expect(problem(variant((m) => m.hooks.push('orders.beforeWrite')))).toEqual({ path: 'hooks.4', message: "orders is not one of the add-on's tables." });
    expect(problem(variant((m) => m.hooks.push('bookings.onRead'))).path).toBe('hooks.4');
    for (const cron of ['schedule:every day', 'schedule:0 6 * *', 'schedule:', 'schedule:1 2 3 4 5 6 7'])
      expect(problem(variant((m) => m.hooks.push(cron))), cron).toMatchObject({ path: 'hooks.4', message: expect.stringMatching(/hook|schedule/) });
  });

  it('oauth2 connect names two of the settings', () => {
    expect(problem(variant((m) => (m.connect.clientIdSetting = 'appId')))).toEqual({
      path: 'connect.clientIdSetting',
      message: "appId is not one of the add-on's settings.",
    });
    expect(problem(variant((m) => delete m.settings.properties.clientSecret)).path).toBe('connect.clientSecretSetting');
    expect(problem(variant((m) => (m.connect.tokenUrl = 'ftp://example.com/token'))).path).toBe('connect.tokenUrl');
    const secret = variant((m) => (m.connect = { kind: 'secret', fields: [{ name: 'apiKey', label: 'API key' }] }));
    expect(parseAddonManifest(secret).ok).toBe(true);
  });

  it('an outbound entry connect:<field> names a field of a secret connect; staffActions are among the actions', () => {
    const secret = (m: any) =>
      (m.connect = {
        kind: 'secret',
        fields: [
          { name: 'webhookUrl', label: 'Webhook URL' },
          { name: 'sig', label: 'Secret', optional: true },
        ],
      });
    expect(parseAddonManifest(variant((m) => (secret(m), m.outbound.push('connect:webhookUrl')))).ok).toBe(true);
    expect(problem(variant((m) => (secret(m), m.outbound.push('connect:nope'))))).toEqual({
      path: 'outbound.2',
      message: "nope is not a field of the add-on's secret connect.",
    });
    // An OAuth connect has no fields to name.
    expect(problem(variant((m) => m.outbound.push('connect:clientId'))).path).toBe('outbound.2');
    expect(problem(variant((m) => (secret(m), m.outbound.push('connect:web hook')))).path).toBe('outbound.2');
    expect(problem(variant((m) => (secret(m), (m.connect.fields[1].optional = 'yes')))).path).toBe('connect.fields.1.optional');
    expect(parseAddonManifest(variant((m) => (m.staffActions = ['cancel']))).ok).toBe(true);
    expect(problem(variant((m) => (m.staffActions = ['cancel', 'nope'])))).toEqual({
      path: 'staffActions.1',
      message: "nope is not one of the add-on's actions.",
    });
  });

  it('oauth2 connect may say how the client authenticates at tokenUrl: basic (default) or body', () => {
    expect(parseAddonManifest(variant((m) => (m.connect.clientAuth = 'body'))).ok).toBe(true);
    expect(problem(variant((m) => (m.connect.clientAuth = 'jwt'))).path).toBe('connect.clientAuth');
  });

  it('settings are a small JSON Schema subset', () => {
    expect(problem(variant((m) => m.settings.required.push('nope'))).path).toBe('settings.required.1');
    expect(problem(variant((m) => (m.settings.properties.tone.type = 'array'))).path).toBe('settings.properties.tone.type');
    expect(problem(variant((m) => (m.settings.properties.flag = { type: 'boolean', enum: ['yes'] }))).path).toBe('settings.properties.flag.enum');
    expect(problem(variant((m) => (m.settings.properties.venue.pattern = '(')))).toMatchObject({ path: 'settings.properties.venue.pattern' });
  });

  it('a string setting may name its format (opening-hours, time-zone): its default must be one, and the dashboard edits it as such', () => {
    const hours = JSON.stringify({ mon: [['12:00', '14:30']], sun: [] });
    const withHours = variant((m) => (m.settings.properties.hours = { type: 'string', format: 'opening-hours', default: hours }));
    expect(parseAddonManifest(withHours).ok).toBe(true);
    expect(parseAddonManifest(variant((m) => (m.settings.properties.tz = { type: 'string', format: 'time-zone', default: 'Europe/Paris' }))).ok).toBe(true);
    expect(problem(variant((m) => (m.settings.properties.tz = { type: 'string', format: 'time-zone', default: 'Europe/Pariss' })))).toEqual({
      path: 'settings.properties.tz.default',
      message: 'Europe/Pariss is not a time zone: use an IANA name such as Europe/Paris.',
    });
    expect(
      problem(variant((m) => (m.settings.properties.hours = { type: 'string', format: 'opening-hours', default: '{"mon":[["14:30","14:30"]]}' }))),
    ).toEqual({
      path: 'settings.properties.hours.default',
      message: 'mon.0: An interval opens and closes at different times (a close before the opening runs past midnight).',
    });
    // A close before the opening runs past midnight: a bar's Friday.
    expect(settingFormatProblem('opening-hours', '{"fri":[["18:00","02:00"]]}')).toBeNull();
    expect(settingFormatProblem('opening-hours', '{"fri":[["24:00","02:00"]]}')).toMatch(/different times/);
    expect(problem(variant((m) => (m.settings.properties.hours = { type: 'integer', format: 'opening-hours' }))).path).toBe('settings.properties.hours.format');
    expect(problem(variant((m) => (m.settings.properties.hours = { type: 'string', format: 'colour' }))).path).toBe('settings.properties.hours.format');
    expect(settingFormatProblem('opening-hours', '{"mon":[["09:00","17:00"]],"tue":[]}')).toBeNull();
    expect(settingFormatProblem('opening-hours', 'not json')).toMatch(/JSON/);
    expect(settingFormatProblem('opening-hours', '{"monday":[]}')).toMatch(/monday|Unrecognized/i);
  });

  it('permissions, events and errors are refused in a package until the instance gives them a meaning (a stored manifest still reads)', () => {
    const declared = {
      permissions: [{ name: 'booking.manage', label: 'Manage bookings', description: 'Edit and cancel bookings.' }],
      events: { 'booking.created': { description: 'A booking was made.' } },
      errors: { BOOKING_FULL: { status: 409, message: 'No table is free then.' } },
    };
    for (const [key, value] of Object.entries(declared)) {
      const m = variant((x) => (x[key] = value));
      expect(problem(m)).toMatchObject({ path: key, message: expect.stringContaining('not supported yet') });
      const stored = parseAddonManifest(m, { stored: true });
      expect(stored.ok).toBe(true);
    }
    expect(problem(variant((x) => (x.events = { Bad: {} }))).path).toBe('events.Bad');
  });

  it('a setting pattern is one RE2 checks in linear time: no backreferences or lookarounds (a stored manifest still reads)', () => {
    for (const pattern of ['^(\\w+)-\\1$', '^(?=.*x)[a-z]+$', '^(?<!a)b$']) {
      const m = variant((x) => (x.settings.properties.venue.pattern = pattern));
      expect(problem(m)).toMatchObject({ path: 'settings.properties.venue.pattern', message: expect.stringContaining('RE2') });
      expect(parseAddonManifest(m, { stored: true }).ok).toBe(true);
    }
    // Nested quantifiers are fine for RE2: it never backtracks.
    expect(parseAddonManifest(variant((m) => (m.settings.properties.venue.pattern = '^(a+)+$'))).ok).toBe(true);
  });

  it('surfaces, peak and limits stay in their bounds', () => {
    expect(problem(variant((m) => (m.surfaces[1].entry = '../index.html'))).path).toBe('surfaces.1.entry');
    expect(problem(variant((m) => (m.surfaces[1].name = 'widget'))).path).toBe('surfaces.1.name');
    expect(problem(variant((m) => (m.peak = 6))).path).toBe('peak');
    expect(problem(variant((m) => (m.limits.memoryMb = 256))).path).toBe('limits.memoryMb');
    expect(problem(variant((m) => (m.limits.cpuMs = 5))).path).toBe('limits.cpuMs');
  });
});
