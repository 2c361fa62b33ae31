import { createHash } from 'node:crypto';
import { physicalTableName, publicRef, type AddonManifest } from '../../../addons-sdk/src/manifest/index.js';
import { AppError, type Kernel } from '../../../kernel/api.js';
import { introspect } from '../../../engine/schema/introspect/index.js';
import { planTables, type DdlPlan } from '../../../engine/schema/ddl/index.js';
import { connectionsRef } from '../../connections/provides.js';
import { publicAdminRef } from '../../public-admin/provides.js';
import type { InstalledAddon } from './installed.js';
import { appTable } from './instances.js';
import { addonTemplateKey } from '../runtime/mail.js';
import { intervalWords, runsMoreOftenThan } from '../runtime/schedules.js';
import type { StagedPackage } from './packages.js';
import type { SettingChange } from './settings-values.js';

/** What an install, upgrade or removal will do (D24), shown before it is done; `hash` names it. */
export interface AddonPlan {
  key: string;
  from: string | null;
  to: string | null;
  hash: string;
  connectionId: string | null;
  verified: boolean;
  tables: Array<{
    name: string;
    action: 'create' | 'alter' | 'keep' | 'drop';
    columns: Array<{ name: string; type: string; action: 'add' | 'keep' | 'drop' | 'retype' }>;
  }>;
  /**
   * `definition`: what the manifest declares of the endpoint (its columns, writable, filters, booking rules, …); null for one removed.
   * `changes`: for an upgrade's `change`, the fields of the definition (and `table`) that differ from the installed version's.
   */
  endpoints: Array<{
    ref: string;
    table: string;
    methods: string[];
    action: 'create' | 'keep' | 'change' | 'remove';
    changes: string[];
    definition: Record<string, unknown> | null;
  }>;
  capabilities: string[];
  outbound: string[];
  surfaces: Array<{ name: string; kind: string; title: string }>;
  hooks: string[];
  actions: string[];
  /** Of `actions`, those the app key may not call (staff only). */
  staffActions: string[];
  /** The e-mails ctx.mail.send may send (AO24). */
  mailTemplates: Array<{ key: string; subject: string; locales: string[] }>;
  peak: number;
  /** The sandbox's bounds for each call of the add-on's code (D25). */
  limits: { memoryMb: number; cpuMs: number };
  /** What connect asks for: a secret connection's field names, an OAuth connection's provider URLs (the instance reaches tokenUrl) and scopes. */
  connect: { kind: 'secret' | 'oauth2'; fields: string[]; authorizeUrl: string | null; tokenUrl: string | null; scopes: string[] } | null;
  settings: Array<{ name: string; type: string; required: boolean; secret: boolean }>;
  /** An upgrade: what happens to stored values (the app's and its instances') under the new settings schema (AO20). */
  settingChanges: SettingChange[];
  warnings: string[];
  destructive: boolean;
}

/** A plan and what carrying it out needs besides what it shows. */
export interface PlanOutcome {
  plan: AddonPlan;
  ddl: DdlPlan | null;
  manifest: AddonManifest | null;
}

function hashOf(plan: Omit<AddonPlan, 'hash'>, packageSha256: string | null): string {
  return createHash('sha256').update(JSON.stringify({ plan, packageSha256 })).digest('hex');
}

/** A value as JSON with object keys in order, so that two definitions compare by content, not by how they were written. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** The fields of an endpoint (its table and each definition key) that differ between two versions, in name order. */
export function endpointChanges(before: AddonManifest['endpoints'][number], after: AddonManifest['endpoints'][number]): string[] {
  const { ref: _a, ...was } = before as Record<string, unknown>;
  const { ref: _b, ...now } = after as Record<string, unknown>;
  return [...new Set([...Object.keys(was), ...Object.keys(now)])].filter((k) => canonical(was[k]) !== canonical(now[k])).sort();
}

/**
 * The plan of installing or upgrading to a staged version on a connection (GET
 * /add-ons/{key}/plan). The connection is read live, so a table made since shows as a conflict.
 */
export async function planInstall(
  kernel: Kernel,
  staged: StagedPackage,
  installed: InstalledAddon | null,
  connectionId: string | null,
  settingChanges: SettingChange[] = [],
): Promise<PlanOutcome> {
  const m = staged.manifest;
  const { default: semver } = await import('semver');
  if (!semver.satisfies(kernel.version, m.engine, { includePrerelease: true }))
    throw new AppError('ADDON_ENGINE_MISMATCH', {
      message: `${m.key} ${m.version} runs on instance versions ${m.engine}; this is ${kernel.version}.`,
      params: { engine: m.engine, version: kernel.version },
    });
  if (installed && semver.lt(m.version, installed.version))
    throw new AppError('ADDON_DOWNGRADE', {
      message: `${m.key} ${installed.version} is installed; ${m.version} is older.`,
      params: { installed: installed.version, version: m.version },
    });
  const target = installed?.connectionId ?? connectionId;
  if (installed && connectionId && installed.connectionId && connectionId !== installed.connectionId)
    throw new AppError('CONFLICT', {
      message: 'An upgrade keeps the connection the add-on is on; move it with PUT /surfaces/{appKey}/connection.',
      params: { reason: 'connection-fixed' },
    });
  if (m.tables.length && !target) throw new AppError('ADDON_CONNECTION_REQUIRED');

  let ddl: DdlPlan | null = null;
  if (m.tables.length && target) {
    const connections = kernel.plugin(connectionsRef);
    const info = await connections.info(target);
    if (info.readOnly)
      throw new AppError('CONFLICT', { message: 'The connection is read-only: an add-on cannot create its tables there.', params: { reason: 'read-only' } });
    const existing = await connections.withSource(target, async (db) => (await introspect(db, info.dialect)).model.tables);
    ddl = planTables(
      m.tables.map((t) => ({ physicalName: physicalTableName(m.key, t.name), table: appTable(t) })),
      existing,
      installed?.manifest.tables.map(appTable),
      { physicalName: (t) => physicalTableName(m.key, t), dialect: info.dialect },
    );
    if (ddl.conflicts.length)
      throw new AppError('ADDON_CONFLICT', {
        message: `The connection already has a table ${ddl.conflicts[0]!.table}.`,
        params: { what: 'table', name: ddl.conflicts[0]!.table },
      });
  }

  const publicAdmin = kernel.plugin(publicAdminRef);
  const before = new Map((installed?.manifest.endpoints ?? []).map((e) => [e.ref, e]));
  const endpoints: AddonPlan['endpoints'] = [];
  for (const e of m.endpoints) {
    const ref = publicRef(m.key, e.ref);
    const holder = await publicAdmin.endpoint(ref);
    if (holder && holder.addonKey !== m.key)
      throw new AppError('ADDON_CONFLICT', { message: `The endpoint ref ${ref} is taken.`, params: { what: 'endpoint', name: ref } });
    const { ref: _ref, table: _table, ...definition } = e;
    const was = before.get(e.ref);
    const changes = was ? endpointChanges(was, e) : [];
    endpoints.push({
      ref,
      table: physicalTableName(m.key, e.table),
      methods: [...e.methods],
      action: !was ? 'create' : changes.length ? 'change' : 'keep',
      changes,
      definition: definition as Record<string, unknown>,
    });
  }
  for (const old of installed?.manifest.endpoints ?? []) {
    if (!m.endpoints.some((e) => e.ref === old.ref))
      endpoints.push({
        ref: publicRef(m.key, old.ref),
        table: physicalTableName(m.key, old.table),
        methods: [],
        action: 'remove',
        changes: [],
        definition: null,
      });
  }

  for (const t of m.mail.templates) {
    const key = addonTemplateKey(m.key, t.name);
    if (kernel.mailer.templates.hasKey(key) && kernel.mailer.templates.ownerOf(key) !== m.key)
      throw new AppError('ADDON_CONFLICT', { message: `The e-mail template key ${key} is taken.`, params: { what: 'mail-template', name: key } });
  }

  const warnings = [...(ddl?.warnings ?? []), ...(ddl?.refusals ?? [])];
  const minInterval = kernel.config.addons.scheduleMinIntervalMs;
  for (const h of m.hooks)
    if (h.startsWith('schedule:') && (await runsMoreOftenThan(h.slice('schedule:'.length).trim(), minInterval)))
      warnings.push(`${h} would run more often than ${intervalWords(minInterval)}: it runs at most ${intervalWords(minInterval)}.`);
  if (!staged.verified) warnings.unshift('This package was uploaded, not downloaded from a catalog: nobody vouches for it.');
  if (installed && connectionForgotten(installed.manifest, m))
    warnings.push(
      'The add-on connects differently in this version (another kind of connect, or another OAuth token URL): its stored connection is forgotten; connect it again.',
    );
  const body: Omit<AddonPlan, 'hash'> = {
    key: m.key,
    from: installed?.version ?? null,
    to: m.version,
    // A table-less upgrade of an add-on on no connection stays on none (the connection given is for tables).
    connectionId: m.tables.length || !installed ? (target ?? null) : installed.connectionId,
    verified: staged.verified,
    tables: (ddl?.tables ?? []).map((t) => ({
      name: t.name,
      action: t.action,
      columns: t.columns.map((c) => ({ name: c.name, type: c.type, action: c.action })),
    })),
    endpoints,
    capabilities: [...m.capabilities],
    outbound: [...m.outbound],
    surfaces: m.surfaces.map((s) => ({ name: s.name, kind: s.kind, title: s.title })),
    hooks: [...m.hooks],
    actions: [...m.actions],
    staffActions: [...m.staffActions],
    mailTemplates: m.mail.templates.map((t) => ({
      key: addonTemplateKey(m.key, t.name),
      subject: t.subject,
      locales: ['en', ...Object.keys(t.locales ?? {}).filter((l) => l !== 'en')],
    })),
    peak: m.peak,
    limits: { memoryMb: m.limits.memoryMb, cpuMs: m.limits.cpuMs },
    connect: m.connect
      ? m.connect.kind === 'secret'
        ? { kind: 'secret', fields: m.connect.fields.map((f) => f.name), authorizeUrl: null, tokenUrl: null, scopes: [] }
        : { kind: 'oauth2', fields: [], authorizeUrl: m.connect.authorizeUrl, tokenUrl: m.connect.tokenUrl, scopes: [...m.connect.scopes] }
      : null,
    settings: Object.entries(m.settings.properties).map(([name, f]) => ({
      name,
      type: f.type,
      required: m.settings.required.includes(name),
      secret: f.secret === true,
    })),
    settingChanges,
    warnings,
    destructive: ddl?.destructive ?? false,
  };
  return { plan: { ...body, hash: hashOf(body, staged.sha256) }, ddl, manifest: m };
}

/**
 * Whether an upgrade from `from` to `to` forgets the stored connection (AO27): another kind of
 * connect (or none), or an OAuth connection whose token URL changed: its refresh token was issued
 * by the old provider and is not sent to another.
 */
export function connectionForgotten(from: AddonManifest, to: AddonManifest): boolean {
  if (from.connect?.kind !== to.connect?.kind) return from.connect !== undefined;
  return from.connect?.kind === 'oauth2' && to.connect?.kind === 'oauth2' && from.connect.tokenUrl !== to.connect.tokenUrl;
}

/** The plan of removing an installed add-on: what `dropData=true` would drop is listed. */
export function planRemoval(installed: InstalledAddon): PlanOutcome {
  const m = installed.manifest;
  const body: Omit<AddonPlan, 'hash'> = {
    key: m.key,
    from: installed.version,
    to: null,
    connectionId: installed.connectionId,
    verified: true,
    tables: m.tables.map((t) => ({
      name: physicalTableName(m.key, t.name),
      action: 'drop',
      columns: t.columns.map((c) => ({ name: c.name, type: c.type, action: 'drop' })),
    })),
    endpoints: m.endpoints.map((e) => ({
      ref: publicRef(m.key, e.ref),
      table: physicalTableName(m.key, e.table),
      methods: [],
      action: 'remove',
      changes: [],
      definition: null,
    })),
    capabilities: [],
    outbound: [],
    surfaces: [],
    hooks: [],
    actions: [],
    staffActions: [],
    mailTemplates: [],
    peak: m.peak,
    limits: { memoryMb: m.limits.memoryMb, cpuMs: m.limits.cpuMs },
    connect: null,
    settings: [],
    settingChanges: [],
    warnings: m.tables.length ? ['The tables and their rows are kept unless the removal says dropData=true; the tables listed are what it would drop.'] : [],
    destructive: m.tables.length > 0,
  };
  return { plan: { ...body, hash: hashOf(body, null) }, ddl: null, manifest: null };
}
