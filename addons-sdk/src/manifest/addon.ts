import { z } from 'zod';
import { errorCodeDeclarationSchema, errorCodeField, eventKindField, permissionDeclarationSchema, SQL_NAME, tableDeclarationSchema } from './declarations.js';
import { DEFINITION_LIMITS, isTimeZone, methodList, openingHoursSchema, optionalDefinitionFields, refField } from './endpoint.js';
import { settingPatternProblem } from './pattern.js';

/** `addon.json` (DESIGN D23): what an add-on declares, and all the instance will ever give it. */
export const ADDON_KEY = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

export const CAPABILITIES = ['db', 'kv', 'mail.send', 'fetch'] as const;
export type Capability = (typeof CAPABILITIES)[number];
export const SURFACE_KINDS = ['dashboard-page', 'public-page', 'embed'] as const;

export const addonKeyField = z
  .string()
  .min(2)
  .max(40)
  .regex(ADDON_KEY, 'an add-on key is kebab-case: lower-case letters and digits in words joined by single hyphens, starting with a letter');
export const semverField = z.string().max(64).regex(SEMVER, 'a version is semver: MAJOR.MINOR.PATCH');

/** A relative path inside the package: no `..`, no leading slash, no backslash. */
const packagePath = z
  .string()
  .min(1)
  .max(255)
  .refine((p) => !p.startsWith('/') && !p.includes('\\') && !p.split('/').includes('..') && !p.includes('\u0000'), {
    message: 'a path inside the package: relative, with / separators and no .. segment',
  });

/**
 * What a string setting holds beyond a string, so the dashboard can offer an editor for it rather
 * than a text box: `opening-hours` (JSON of the booking rules' opening hours, a week editor) and
 * `time-zone` (an IANA name, a list of the zones).
 */
export const SETTING_FORMATS = ['opening-hours', 'time-zone'] as const;
export type SettingFormat = (typeof SETTING_FORMATS)[number];

/** Why `value` is not a value of `format`, or null when it is. */
export function settingFormatProblem(format: SettingFormat, value: string): string | null {
  if (format === 'time-zone') return isTimeZone(value) ? null : `${value} is not a time zone: use an IANA name such as Europe/Paris.`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return 'Opening hours are JSON: {"mon": [["12:00","14:30"]], …}.';
  }
  const checked = openingHoursSchema.safeParse(parsed);
  if (checked.success) return null;
  const issue = checked.error.issues[0]!;
  return `${issue.path.join('.') || 'opening hours'}: ${issue.message}`;
}

const settingField = z
  .strictObject({
    type: z.enum(['string', 'number', 'integer', 'boolean']),
    title: z.string().max(200).optional(),
    description: z.string().max(2000).optional(),
    enum: z
      .array(z.union([z.string().max(200), z.number()]))
      .min(1)
      .max(100)
      .optional(),
    default: z.union([z.string().max(10_000), z.number(), z.boolean()]).optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    minLength: z.number().int().min(0).optional(),
    maxLength: z.number().int().min(1).max(10_000).optional(),
    pattern: z.string().max(500).optional(),
    /** Write-only: stored encrypted, never returned (the API says `"set": true` instead). */
    secret: z.boolean().optional(),
    /** A string setting's editor in the dashboard (see SETTING_FORMATS). */
    format: z.enum(SETTING_FORMATS).optional(),
  })
  .superRefine((f, ctx) => {
    if (f.enum && f.type === 'boolean') ctx.addIssue({ code: 'custom', path: ['enum'], message: 'A boolean setting has no enum.' });
    if (f.format !== undefined && (f.type !== 'string' || f.enum || f.secret))
      ctx.addIssue({ code: 'custom', path: ['format'], message: 'A format is for a plain string setting (no enum, not secret).' });
    else if (f.format !== undefined && typeof f.default === 'string') {
      const problem = settingFormatProblem(f.format, f.default);
      if (problem) ctx.addIssue({ code: 'custom', path: ['default'], message: problem });
    }
    if (f.pattern !== undefined) {
      try {
        new RegExp(f.pattern, 'u');
      } catch {
        ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'Not a valid regular expression.' });
      }
    }
  });
export type SettingField = z.infer<typeof settingField>;

/** A JSON Schema subset: one object of string, number, integer, boolean and enum fields. */
export const settingsSchema = z
  .strictObject({
    type: z.literal('object'),
    properties: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'setting names are identifiers'), settingField),
    required: z.array(z.string()).default([]),
  })
  .superRefine((s, ctx) => {
    if (Object.keys(s.properties).length > 100) ctx.addIssue({ code: 'custom', path: ['properties'], message: 'At most 100 settings.' });
    s.required.forEach((r, i) => {
      if (!(r in s.properties)) ctx.addIssue({ code: 'custom', path: ['required', i], message: `${r} is not a setting.` });
    });
  });
export type SettingsSchema = z.infer<typeof settingsSchema>;

const connectSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('secret'),
    fields: z
      .array(
        z.strictObject({
          name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/),
          label: z.string().min(1).max(200),
          description: z.string().max(2000).optional(),
          /** The operator may leave it empty (the add-on sees it absent from ctx.connection). */
          optional: z.boolean().optional(),
        }),
      )
      .min(1)
      .max(20),
  }),
  z.strictObject({
    kind: z.literal('oauth2'),
    authorizeUrl: z.url({ protocol: /^https?$/ }),
    tokenUrl: z.url({ protocol: /^https?$/ }),
    scopes: z.array(z.string().min(1).max(200)).max(50).default([]),
    clientIdSetting: z.string().min(1),
    clientSecretSetting: z.string().min(1),
    /**
     * How the instance authenticates at `tokenUrl` (RFC 6749 §2.3.1): `basic` (HTTP Basic, what
     * every server must support; the default) or `body` (client_id and client_secret as form fields).
     */
    clientAuth: z.enum(['basic', 'body']).optional(),
  }),
]);
export type AddonConnect = z.infer<typeof connectSchema>;

/** A host name `fetch` may reach: a DNS name, optionally with a leading `*.` for its subdomains. No IPs. */
const OUTBOUND_HOST = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/;
/**
 * `connect:<field>`: the host of the URL the operator put in that secret connect field, allowed
 * while connected (a webhook's host is the operator's choice, not the author's).
 */
export const OUTBOUND_CONNECT = /^connect:([A-Za-z][A-Za-z0-9_]{0,63})$/;
const outboundEntry = z
  .string()
  .max(253)
  .refine((o) => OUTBOUND_HOST.test(o) || OUTBOUND_CONNECT.test(o), {
    message: 'an outbound host is a lower-case DNS name (e.g. api.example.com or *.example.com), not an IP address, or connect:<field>',
  });

/** `<table>.beforeWrite`, `<table>.afterWrite` or `schedule:<cron>` (five or six fields). */
export const HOOK_NAME = /^([a-z][a-z0-9_]{0,47})\.(beforeWrite|afterWrite)$|^schedule:(.+)$/;
const hookName = z
  .string()
  .max(120)
  .refine((h) => HOOK_NAME.test(h), { message: 'a hook is <table>.beforeWrite, <table>.afterWrite or schedule:<cron>' })
  .refine((h) => !h.startsWith('schedule:') || /^\S+( \S+){4,5}$/.test(h.slice('schedule:'.length).trim()), {
    message: 'a schedule is a cron expression of five (or six, with seconds) fields',
  });

/** One e-mail of the add-on (AO24): `{{name}}` placeholders as the instance's own templates (D15). */
const mailContent = {
  subject: z
    .string()
    .min(1)
    .max(300)
    .refine((v) => !/[\r\n]/.test(v), { message: 'A subject is one line.' }),
  text: z.string().min(1).max(100_000),
  html: z.string().max(200_000).optional(),
};
export const MAIL_TEMPLATE_NAME = /^[a-z][a-z0-9-]{0,39}$/;
const mailTemplateSchema = z.strictObject({
  name: z.string().regex(MAIL_TEMPLATE_NAME, 'mail template names are kebab-case'),
  ...mailContent,
  /** Other languages than the default (sent as `en` and as the last fallback): `de`, `pt_BR`. */
  locales: z.record(z.string().regex(/^[a-z]{2,3}(_[A-Za-z0-9]{2,8}){0,2}$/, 'a locale like de or pt_BR'), z.strictObject(mailContent)).optional(),
});
export type AddonMailTemplate = z.infer<typeof mailTemplateSchema>;

/** At most this many `schedule:` hooks per add-on (AO29). */
export const MAX_SCHEDULES = 10;

const endpointSchema = z.strictObject({
  ...optionalDefinitionFields,
  /** Required here: the plan shows them, and the app key is granted exactly these. */
  methods: methodList.min(1),
  /** The endpoint's ref inside the app; the instance serves it as `<key>-<ref>`. */
  ref: refField.refine((r) => r.length <= DEFINITION_LIMITS.ref - 41, { message: 'a ref of an add-on leaves room for its key prefix' }),
  table: z.string().regex(SQL_NAME),
});
export type AddonEndpoint = z.infer<typeof endpointSchema>;

export const addonManifestSchema = z
  .strictObject({
    key: addonKeyField,
    name: z.string().min(1).max(100),
    version: semverField,
    /** The instance versions it runs on, a semver range (e.g. `>=0.1.0 <1`). */
    engine: z.string().min(1).max(200),
    description: z.string().max(2000).default(''),
    author: z.string().max(200).default(''),
    homepage: z.url({ protocol: /^https?$/ }).optional(),
    capabilities: z
      .array(z.enum(CAPABILITIES))
      .default([])
      .refine((c) => new Set(c).size === c.length, { message: 'each capability at most once' }),
    permissions: z.array(permissionDeclarationSchema).max(50).default([]),
    events: z.record(eventKindField, z.strictObject({ description: z.string().max(2000).optional() })).default({}),
    errors: z.record(errorCodeField, errorCodeDeclarationSchema).default({}),
    tables: z.array(tableDeclarationSchema).max(50).default([]),
    endpoints: z.array(endpointSchema).max(50).default([]),
    surfaces: z
      .array(
        z.strictObject({
          name: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'surface names are kebab-case'),
          kind: z.enum(SURFACE_KINDS),
          entry: packagePath.default('index.html'),
          title: z.string().min(1).max(100),
        }),
      )
      .max(20)
      .default([]),
    peak: z.number().int().min(1).max(5).default(1),
    settings: settingsSchema.default({ type: 'object', properties: {}, required: [] }),
    connect: connectSchema.optional(),
    outbound: z.array(outboundEntry).max(50).default([]),
    hooks: z.array(hookName).max(100).default([]),
    actions: z
      .array(z.string().regex(/^[a-z][a-zA-Z0-9_-]{0,63}$/, 'action names are identifiers (letters, digits, _ and -)'))
      .max(50)
      .default([]),
    /** Actions only a signed-in person with add-ons.use may call (the app key is refused): what a dashboard-page asks for. */
    staffActions: z.array(z.string()).max(50).default([]),
    /** The e-mails `ctx.mail.send` may send (AO24): listed under e-mail templates as `<key>.<name>`. */
    mail: z.strictObject({ templates: z.array(mailTemplateSchema).max(20).default([]) }).default({ templates: [] }),
    limits: z
      .strictObject({ memoryMb: z.number().int().min(16).max(128).default(64), cpuMs: z.number().int().min(10).max(2000).default(200) })
      .default({ memoryMb: 64, cpuMs: 200 }),
  })
  .superRefine((m, ctx) => {
    const tables = new Map(m.tables.map((t) => [t.name, t]));
    const seen = new Set<string>();
    m.tables.forEach((t, i) => {
      if (seen.has(t.name)) ctx.addIssue({ code: 'custom', path: ['tables', i, 'name'], message: `Table ${t.name} is declared twice.` });
      seen.add(t.name);
    });
    const refs = new Set<string>();
    m.endpoints.forEach((e, i) => {
      if (refs.has(e.ref)) ctx.addIssue({ code: 'custom', path: ['endpoints', i, 'ref'], message: `Endpoint ${e.ref} is declared twice.` });
      refs.add(e.ref);
      const table = tables.get(e.table);
      if (!table) {
        ctx.addIssue({ code: 'custom', path: ['endpoints', i, 'table'], message: `${e.table} is not one of the add-on's tables.` });
        return;
      }
      const columns = new Set(table.columns.map((c) => c.name));
      const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path: ['endpoints', i, ...path], message });
      for (const key of ['columns', 'writable', 'filterable', 'searchable', 'orderable', 'identity', 'sensitive'] as const) {
        (e[key] ?? []).forEach((c, j) => {
          if (!columns.has(c)) issue([key, j], `${c} is not a column of ${e.table}.`);
        });
      }
      // The rules the instance checks when it installs the endpoint, so check and the plan say them first.
      if (e.columns) {
        const exposed = new Set(e.columns);
        for (const key of ['writable', 'filterable', 'searchable', 'orderable'] as const) {
          (e[key] ?? []).forEach((c, j) => {
            if (columns.has(c) && !exposed.has(c)) issue([key, j], `${c} must be among the endpoint's columns.`);
          });
        }
      }
      for (const c of Object.keys(e.defaults ?? {})) if (!columns.has(c)) issue(['defaults', c], `${c} is not a column of ${e.table}.`);
      (e.filters ?? []).forEach((f, j) => columns.has(f.column) || issue(['filters', j, 'column'], `${f.column} is not a column of ${e.table}.`));
      const b = e.booking;
      if (b) {
        const typeOf = (c: string) => table.columns.find((x) => x.name === c)?.type;
        if (!columns.has(b.timeColumn)) issue(['booking', 'timeColumn'], `${b.timeColumn} is not a column of ${e.table}.`);
        else if (!['datetime', 'date', 'string', 'text'].includes(typeOf(b.timeColumn) ?? ''))
          issue(['booking', 'timeColumn'], `${b.timeColumn} must hold a date and time.`);
        if (b.partyColumn && !columns.has(b.partyColumn)) issue(['booking', 'partyColumn'], `${b.partyColumn} is not a column of ${e.table}.`);
        else if (b.partyColumn && !['integer', 'bigint', 'decimal', 'float'].includes(typeOf(b.partyColumn) ?? ''))
          issue(['booking', 'partyColumn'], `${b.partyColumn} must hold a number.`);
        for (const k of ['emailColumn', 'codeColumn', 'localeColumn'] as const) {
          const c = b[k];
          if (c && !columns.has(c)) issue(['booking', k], `${c} is not a column of ${e.table}.`);
        }
      }
      if (e.window && !columns.has(e.window.column)) issue(['window', 'column'], `${e.window.column} is not a column of ${e.table}.`);
      if (e.needsSession && !(e.identity ?? []).length) issue(['needsSession'], 'An endpoint that needs a customer session needs identity columns.');
    });
    m.hooks.forEach((h, i) => {
      const table = /^([a-z][a-z0-9_]*)\.(beforeWrite|afterWrite)$/.exec(h)?.[1];
      if (table && !tables.has(table)) ctx.addIssue({ code: 'custom', path: ['hooks', i], message: `${table} is not one of the add-on's tables.` });
    });
    if (m.hooks.filter((h) => h.startsWith('schedule:')).length > MAX_SCHEDULES)
      ctx.addIssue({ code: 'custom', path: ['hooks'], message: `At most ${MAX_SCHEDULES} schedule: hooks.` });
    const mailNames = new Set<string>();
    m.mail.templates.forEach((t, i) => {
      if (mailNames.has(t.name))
        ctx.addIssue({ code: 'custom', path: ['mail', 'templates', i, 'name'], message: `Mail template ${t.name} is declared twice.` });
      mailNames.add(t.name);
    });
    if (m.mail.templates.length && !m.capabilities.includes('mail.send'))
      ctx.addIssue({ code: 'custom', path: ['mail'], message: 'mail templates need the mail.send capability.' });
    const surfaceNames = new Set<string>();
    m.surfaces.forEach((s, i) => {
      if (surfaceNames.has(s.name)) ctx.addIssue({ code: 'custom', path: ['surfaces', i, 'name'], message: `Surface ${s.name} is declared twice.` });
      surfaceNames.add(s.name);
    });
    if (m.outbound.length && !m.capabilities.includes('fetch'))
      ctx.addIssue({ code: 'custom', path: ['outbound'], message: 'outbound hosts need the fetch capability.' });
    m.outbound.forEach((o, i) => {
      const field = OUTBOUND_CONNECT.exec(o)?.[1];
      if (field && !(m.connect?.kind === 'secret' && m.connect.fields.some((f) => f.name === field)))
        ctx.addIssue({ code: 'custom', path: ['outbound', i], message: `${field} is not a field of the add-on's secret connect.` });
    });
    m.staffActions.forEach((a, i) => {
      if (!m.actions.includes(a)) ctx.addIssue({ code: 'custom', path: ['staffActions', i], message: `${a} is not one of the add-on's actions.` });
    });
    if (m.connect?.kind === 'oauth2') {
      for (const key of ['clientIdSetting', 'clientSecretSetting'] as const) {
        if (!(m.connect[key] in m.settings.properties))
          ctx.addIssue({ code: 'custom', path: ['connect', key], message: `${m.connect[key]} is not one of the add-on's settings.` });
      }
    }
  });

export type AddonManifest = z.infer<typeof addonManifestSchema>;
export type AddonManifestInput = z.input<typeof addonManifestSchema>;

export type ManifestCheck = { ok: true; manifest: AddonManifest } | { ok: false; path: string; message: string };

/**
 * What a package may no longer declare though a stored manifest (an installed or staged one,
 * accepted by an earlier version) still parses with it: checked when a package is checked.
 */
function packageProblem(m: AddonManifest): { path: string; message: string } | null {
  // Declared but not yet given a meaning by the instance (AO28): refused rather than silently ignored.
  if (m.permissions.length)
    return {
      path: 'permissions',
      message: 'permissions are not supported yet: the instance would not grant or enforce them. Remove them; staffActions keep an action from the app key.',
    };
  if (Object.keys(m.events).length) return { path: 'events', message: 'events are not supported yet: there is no host function to publish them. Remove them.' };
  if (Object.keys(m.errors).length)
    return {
      path: 'errors',
      message:
        "errors are not supported yet: an action's thrown error is answered as ADDON_FAILED, whatever its code. Remove them; a hook refuses a write with { refuse }.",
    };
  for (const [name, f] of Object.entries(m.settings.properties)) {
    const problem = f.pattern === undefined ? null : settingPatternProblem(f.pattern);
    if (problem) return { path: `settings.properties.${name}.pattern`, message: problem };
  }
  return null;
}

/**
 * Parses addon.json's value; on failure, the first problem's path (`endpoints.0.table`) and
 * message. `stored`: a manifest the instance already holds, read back (the package rules that
 * came later are not applied to it again).
 */
export function parseAddonManifest(value: unknown, opts: { stored?: boolean } = {}): ManifestCheck {
  const result = addonManifestSchema.safeParse(value);
  if (result.success) {
    const problem = opts.stored ? null : packageProblem(result.data);
    return problem ? { ok: false, ...problem } : { ok: true, manifest: result.data };
  }
  const issue = result.error.issues[0]!;
  return { ok: false, path: issue.path.join('.') || '(root)', message: issue.message };
}

/** The name an add-on table has on its connection: `<key with _>__<table>` (D23). */
export function physicalTableName(addonKey: string, table: string): string {
  return `${addonKey.replace(/-/g, '_')}__${table}`;
}

/** The ref an add-on endpoint is served under: `<key>-<ref>` (D23). */
export function publicRef(addonKey: string, ref: string): string {
  return `${addonKey}-${ref}`;
}
