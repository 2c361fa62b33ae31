import { HOOK_NAME, OUTBOUND_CONNECT, physicalTableName } from '../../../addons-sdk/src/manifest/index.js';
import {
  addonFailureDetail,
  type AfterRowWrite,
  AppError,
  type BeforeRowWrite,
  crashCause,
  type HostCapability,
  type Json,
  type Kernel,
  outboundFetch,
  outboundHosts,
  type RowWriteHookProvider,
  type SandboxAddon,
  type ScheduledItem,
  type ScheduledJob,
  type SecretBox,
} from '../../../kernel/api.js';
import { AddonLog, redact as redactSecrets, secretsOf } from './addon-log.js';
import { HostDb } from './host-db.js';
import { HostKv } from './host-kv.js';
import { AddonMail, sweepMailSends, syncAddonTemplates } from './mail.js';
import { keptResult, SCHEDULE_JOB, SWEEP_EVERY_MS, sweepScheduleJobs } from './schedules.js';
import type { AddonConnections } from '../connect/connect.js';
import type { InstalledAddon, InstalledStore } from '../lifecycle/installed.js';
import type { InstanceStore } from '../lifecycle/instances.js';
import type { PackageStore } from '../lifecycle/packages.js';
import type { AddonsOptions } from '../options.js';
import { ADDON_SCHEDULE_OWNER, scheduleOwnerId, type AddonsDb } from '../tables.js';
import { DEFAULT_INSTANCE, INSTANCE_COLUMN } from '../lifecycle/instances.js';
import { openSettings, type StoredSettings } from '../lifecycle/settings-values.js';

export { SCHEDULE_JOB } from './schedules.js';
/** ctx.fetch's whole request at most (S8), and never past its call's deadline. */
const FETCH_TIMEOUT_MS = 10_000;
/** Other replicas see an install, change or removal within this (the public keys' rule). */
const POLL_MS = 5000;

interface Loaded {
  addon: InstalledAddon;
  sandbox: SandboxAddon | null;
  /** The named instances' settings (D28); the default instance has the app's. */
  instances: Map<string, StoredSettings>;
}

/** The instance a write is for: the first of these rows naming one (the endpoint's pin, the row as it was, the values written), else the default. */
function instanceOf(...rows: Array<Record<string, unknown> | null | undefined>): string {
  for (const r of rows) {
    const v = r?.[INSTANCE_COLUMN];
    if (typeof v === 'string' && v) return v;
  }
  return DEFAULT_INSTANCE;
}

const tableKey = (connectionId: string, table: string) => `${connectionId}\u0000${table}`;
const refusal = (key: string, message: string) => new AppError('ADDON_REFUSED', { message: message.slice(0, 500), params: { addon: key } });

/**
 * What the runtime reads of the add-ons plugin (its hub satisfies it): the installed add-ons,
 * their instances, code, settings and connections, and word of a change.
 */
export interface RuntimeReader {
  readonly db: AddonsDb;
  readonly installed: Pick<InstalledStore, 'list' | 'stamp'>;
  readonly instances: Pick<InstanceStore, 'all'>;
  readonly packages: Pick<PackageStore, 'serverCode' | 'serverSourceMap'>;
  /** Opens the secret settings the add-on's code reads. */
  readonly box: SecretBox;
  readonly connects: Pick<AddonConnections, 'forAddon'>;
  onChange(listener: (key: string) => void | Promise<void>): void;
}

/**
 * What runs installed add-ons: their hooks on row writes, their actions, their schedules, and
 * the host functions their sandboxed code calls (D25). Kept from the installed add-ons,
 * reloaded at once on a change here and within POLL_MS on other replicas.
 */
export class AddonRuntime implements RowWriteHookProvider {
  private loaded = new Map<string, Loaded>();
  /** (connection, physical table) → the add-on and the table's name in its manifest. */
  private tables = new Map<string, { key: string; table: string; before: boolean; after: boolean }>();
  private unschedule: (() => void) | null = null;
  private stamp = '';
  private poller: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private readonly db: HostDb;
  private readonly kv: HostKv;
  private readonly mail: AddonMail;
  /** The add-ons whose mail templates are registered now (AO24). */
  private mailOwners = new Set<string>();
  private closed = false;
  /** What add-ons write into the instance's log: ctx.log, their failures with the source line, refused fetches (AO35). */
  private readonly addonLog: AddonLog;
  /** The secret values each add-on instance's calls ran with last (`key\u0000instance`), kept out of what it logs. */
  private readonly secrets = new Map<string, string[]>();

  constructor(
    private readonly kernel: Kernel,
    private readonly addons: RuntimeReader,
    private readonly options: AddonsOptions = {},
  ) {
    this.db = new HostDb(kernel);
    this.kv = new HostKv(addons.db);
    this.mail = new AddonMail(kernel);
    this.addonLog = new AddonLog(kernel.log, () => kernel.now(), {
      sourceMap: (key, version) => addons.packages.serverSourceMap(key, version),
      code: (key, version) => {
        const sandbox = this.loaded.get(key)?.sandbox;
        return sandbox?.version === version ? sandbox.code : null;
      },
    });
  }

  async start(): Promise<void> {
    this.kernel.sandbox.setHostCallHandler((addon, capability, method, args, call) => this.hostCall(addon, capability, method, args, call.deadline));
    this.kernel.rowWrites.register(this);
    this.addons.onChange(() => this.reload());
    this.unschedule = this.kernel.schedules.register({
      kind: ADDON_SCHEDULE_OWNER,
      list: () => (this.closed ? [] : this.scheduledItems()),
      job: (item, dueAt) => this.scheduledJob(item, dueAt),
    });
    await this.reload();
    this.poller = setInterval(() => void this.poll(), POLL_MS);
    this.poller.unref();
    // Schedule jobs and their claims are kept a week and a hundred per add-on (AO29).
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    this.sweeper.unref();
    void this.sweep();
  }

  /**
   * Deletes the schedule jobs past their retention, and the mail sends past their hour of add-ons
   * that send no more (every replica may run it: deletes are idempotent).
   */
  async sweep(now = Date.now()): Promise<number> {
    if (this.closed) return 0;
    try {
      const keys = [...new Set([...this.loaded.keys(), ...(await this.addons.installed.list()).map((a) => a.key)])];
      await sweepMailSends(this.addons.db, now);
      return await sweepScheduleJobs(this.addons.db, keys, now);
    } catch (err) {
      this.kernel.log.warn({ err: { message: (err as Error).message } }, 'could not sweep old add-on schedule jobs');
      return 0;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.poller) clearInterval(this.poller);
    if (this.sweeper) clearInterval(this.sweeper);
    this.unschedule?.();
    this.unschedule = null;
    await this.db.close();
  }

  private async poll(): Promise<void> {
    if (this.closed) return;
    try {
      const stamp = await this.addons.installed.stamp();
      if (stamp !== this.stamp) await this.reload();
    } catch (err) {
      this.kernel.log.warn({ err: { message: (err as Error).message } }, 'could not check for add-on changes');
    }
  }

  async reload(): Promise<void> {
    const all = await this.addons.installed.list();
    const instances = await this.addons.instances.all();
    this.stamp = await this.addons.installed.stamp();
    const loaded = new Map<string, Loaded>();
    const tables = new Map<string, { key: string; table: string; before: boolean; after: boolean }>();
    for (const addon of all) {
      if (!addon.enabled) continue;
      const m = addon.manifest;
      const code = m.hooks.length || m.actions.length ? await this.addons.packages.serverCode(addon.key, addon.version).catch(() => null) : null;
      loaded.set(addon.key, {
        addon,
        sandbox: code === null ? null : { key: addon.key, version: addon.version, code, limits: m.limits, capabilities: m.capabilities },
        instances: new Map((instances.get(addon.key) ?? []).map((i) => [i.id, i.settings])),
      });
      if (!addon.connectionId) continue;
      for (const hook of m.hooks) {
        const match = HOOK_NAME.exec(hook);
        if (!match?.[1]) continue;
        const k = tableKey(addon.connectionId, physicalTableName(m.key, match[1]));
        const entry = tables.get(k) ?? { key: m.key, table: match[1], before: false, after: false };
        if (match[2] === 'beforeWrite') entry.before = true;
        else entry.after = true;
        tables.set(k, entry);
      }
    }
    const running = (m: Map<string, Loaded>) => [...m.values()].flatMap((l) => (l.sandbox ? [`${l.sandbox.key}@${l.sandbox.version}`] : []));
    const now = new Set(running(loaded));
    // A removed, disabled or upgraded add-on's warm contexts go now, not when the pool ages them out (AO36).
    this.kernel.sandbox.forget(running(this.loaded).filter((id) => !now.has(id)));
    this.loaded = loaded;
    this.tables = tables;
    // With code to run, the sandbox child starts at boot (or at the first install), not on the first call (AO37).
    if (now.size > 0 && !this.closed) this.kernel.sandbox.start();
    this.mailOwners = syncAddonTemplates(
      this.kernel.mailer.templates,
      [...loaded.values()].map((l) => l.addon.manifest),
      this.mailOwners,
      this.kernel.log,
    );
    await this.kernel.schedules.reload();
  }

  /**
   * The add-ons' `schedule:` hooks as the kernel's scheduler lists them (K49): one item per hook
   * of an enabled add-on, read in the server's time zone, claimed once a minimum-interval window
   * (AO29) and run as an `add-ons.schedule` job of one attempt.
   */
  private scheduledItems(): ScheduledItem[] {
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const windowMs = this.kernel.config.addons.scheduleMinIntervalMs;
    const items: ScheduledItem[] = [];
    for (const { addon } of this.loaded.values()) {
      for (const hook of addon.manifest.hooks) {
        if (!hook.startsWith('schedule:')) continue;
        items.push({
          id: scheduleOwnerId(addon.key, hook),
          cron: hook.slice('schedule:'.length).trim(),
          timeZone,
          windowMs,
          // A pattern with seconds runs at most once a minimum interval here too (AO29).
          minIntervalSeconds: Math.floor(windowMs / 1000),
        });
      }
    }
    return items;
  }

  private scheduledJob(item: ScheduledItem, dueAt: number): ScheduledJob | null {
    const cut = item.id.indexOf(':');
    const key = item.id.slice(0, cut);
    const hook = item.id.slice(cut + 1);
    if (!this.loaded.get(key)?.addon.manifest.hooks.includes(hook)) return null;
    return { kind: SCHEDULE_JOB, payload: { key, hook, dueAt }, maxAttempts: 1 };
  }

  /** Claims the run (one replica, one run a window: AO29) and queues it as a job, as the kernel's timer does. */
  async enqueueSchedule(key: string, hook: string, dueAt: number): Promise<string | null> {
    const item = this.scheduledItems().find((i) => i.id === scheduleOwnerId(key, hook));
    if (!item) return null;
    const job = await this.kernel.schedules.fire(ADDON_SCHEDULE_OWNER, item, dueAt);
    return job?.id ?? null;
  }

  private require(key: string): Loaded {
    const l = this.loaded.get(key);
    if (!l) throw new AppError('ADDON_NOT_FOUND', { message: 'No such add-on is installed and enabled.', params: { key } });
    return l;
  }

  /** Runs a hook or action for one instance of the app (D28): with its settings, its ctx.db seeing its rows alone. */
  private async call(l: Loaded, target: { kind: 'hook' | 'action'; name: string }, input: Json, instance: string = DEFAULT_INSTANCE): Promise<Json> {
    if (!l.sandbox) throw new AppError('ADDON_HANDLER_MISSING', { params: { name: target.name } });
    const stored = instance === DEFAULT_INSTANCE ? l.addon.settings : l.instances.get(instance);
    if (!stored) throw new AppError('ADDON_INSTANCE_NOT_FOUND', { params: { key: l.addon.key, instance } });
    const settings = openSettings(stored, this.addons.box) as Record<string, Json>;
    // What connect stored for this add-on's own key, and nothing of another's (D25, D29).
    const connection = await this.addons.connects.forAddon(l.addon);
    const secretNames = Object.entries(l.addon.manifest.settings.properties).flatMap(([name, f]) => (f.secret === true ? [name] : []));
    const secrets = secretsOf(secretNames, settings, connection);
    this.secrets.set(`${l.addon.key}\u0000${instance}`, secrets);
    try {
      return await this.kernel.sandbox.call({ addon: l.sandbox, target, context: { instance, settings, connection }, input });
    } catch (err) {
      const detail = addonFailureDetail(err);
      if (detail) {
        // The caller is told the message (never the stack), with no secret of the add-on in it.
        const params = (err as AppError).params;
        if (params && typeof params['message'] === 'string') params['message'] = redactSecrets(params['message'], secrets);
        this.addonLog.failure({ key: l.addon.key, version: l.addon.version }, target, detail, secrets).catch(() => undefined);
      }
      throw err;
    }
  }

  // RowWriteHookProvider
  hooks(connectionId: string, table: string): boolean {
    return this.tables.has(tableKey(connectionId, table));
  }

  async before(e: BeforeRowWrite): Promise<Record<string, unknown> | null> {
    const t = this.tables.get(tableKey(e.connectionId, e.table));
    if (!t?.before) return null;
    const l = this.require(t.key);
    const result = await this.call(
      l,
      { kind: 'hook', name: `${t.table}.beforeWrite` },
      { table: t.table, op: e.op, values: e.values as Json, previous: (e.previous ?? null) as Json },
      instanceOf(e.pinned, e.previous, e.values),
    );
    if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
    if (typeof result.refuse === 'string') throw refusal(t.key, result.refuse);
    if (result.values !== undefined && result.values !== null && typeof result.values === 'object' && !Array.isArray(result.values)) {
      // Which instance a row is of is not the hook's to change (D28).
      const { [INSTANCE_COLUMN]: _instance, ...values } = result.values as Record<string, unknown>;
      return values;
    }
    return null;
  }

  after(e: AfterRowWrite): void {
    const t = this.tables.get(tableKey(e.connectionId, e.table));
    if (!t?.after) return;
    const l = this.loaded.get(t.key);
    if (!l) return;
    this.call(l, { kind: 'hook', name: `${t.table}.afterWrite` }, { table: t.table, op: e.op, row: e.row as Json }, instanceOf(e.row)).catch((err: unknown) =>
      this.kernel.log.warn(
        { addon: t.key, hook: `${t.table}.afterWrite`, err: { code: (err as AppError).code, message: (err as Error).message } },
        'an add-on afterWrite hook failed',
      ),
    );
  }

  /** POST /public/apps/{key}/actions/{name}: `caller` is who the route found calling (AO5), for one instance of the app (the calling key's, or the one staff name). */
  async action(key: string, name: string, input: Json, caller: 'app' | 'staff', instance: string = DEFAULT_INSTANCE): Promise<Json> {
    const l = this.require(key);
    if (!l.addon.manifest.actions.includes(name))
      throw new AppError('ADDON_HANDLER_MISSING', { message: 'The add-on declares no such action.', params: { name } });
    if (caller === 'app' && l.addon.manifest.staffActions.includes(name)) throw new AppError('ADDON_ACTION_STAFF_ONLY', { params: { name } });
    return this.call(l, { kind: 'action', name }, input, instance);
  }

  /**
   * The job of a scheduled hook: run once per instance of the app (D28), each with its own
   * settings and rows. With named instances the answer is each one's result by instance id.
   */
  async runSchedule(key: string, hook: string, dueAt: number): Promise<Json> {
    const l = this.loaded.get(key);
    if (!l || !l.addon.manifest.hooks.includes(hook)) return null;
    const input = { cron: hook.slice('schedule:'.length).trim(), at: new Date(dueAt).toISOString() };
    // A run the sandbox lost under it (another add-on's crash, a kill from outside) runs once more
    // on the new child; a run whose own isolate took the child down does not (S11).
    const self = `${l.addon.key}@${l.addon.version}`;
    const run = (instance?: string) =>
      this.call(l, { kind: 'hook', name: hook }, input, instance).catch((err: unknown) => {
        if ((err as AppError).code === 'ADDON_CRASHED' && crashCause(err) !== self) return this.call(l, { kind: 'hook', name: hook }, input, instance);
        throw err;
      });
    // The job keeps a bounded result (AO29).
    if (l.instances.size === 0) return keptResult(await run());
    const out: Record<string, Json> = {};
    for (const id of [DEFAULT_INSTANCE, ...l.instances.keys()]) out[id] = keptResult(await run(id));
    return out;
  }

  /** The host functions (D25): only what the add-on declared, on its own things. */
  private async hostCall(
    addon: { key: string; version: string; instance: string | null },
    capability: HostCapability,
    method: string,
    args: Json[],
    deadline: number,
  ): Promise<Json> {
    const l = this.loaded.get(addon.key);
    if (!l || l.addon.version !== addon.version) throw new AppError('ADDON_HOST_DENIED', { message: 'The add-on is not installed and enabled.' });
    const m = l.addon.manifest;
    if (capability === 'log') {
      const [message, fields] = args;
      const level = method === 'error' ? 'error' : method === 'warn' ? 'warn' : 'info';
      this.addonLog.line(addon, level, message, fields, this.secrets.get(`${addon.key}\u0000${addon.instance ?? DEFAULT_INSTANCE}`) ?? []);
      return null;
    }
    if (!m.capabilities.includes(capability)) throw new AppError('ADDON_HOST_DENIED', { message: `The add-on did not declare ${capability}.` });
    switch (capability) {
      case 'db':
        return this.db.call(m, l.addon.connectionId, method, args, addon.instance ?? DEFAULT_INSTANCE, deadline);
      case 'kv':
        return this.kv.call(addon.key, method, args);
      case 'mail.send':
        return this.mail.send(m, args);
      case 'fetch': {
        const [url, init] = args;
        if (typeof url !== 'string') throw new AppError('VALIDATION_FAILED', { message: 'fetch(url, init)' });
        // A `connect:<field>` entry allows the host the operator connected (read now, so a disconnect takes it away at once).
        const connection = m.outbound.some((o) => OUTBOUND_CONNECT.test(o)) ? await this.addons.connects.forAddon(l.addon) : null;
        try {
          return (await outboundFetch(url, (init ?? undefined) as Parameters<typeof outboundFetch>[1], {
            allowedHosts: outboundHosts(m.outbound, connection),
            networkFeatures: this.kernel.config.networkFeatures,
            // Never past its call's end: the add-on is answered then, and the request would hold its slot for nothing.
            timeoutMs: Math.max(1, Math.min(FETCH_TIMEOUT_MS, deadline - Date.now())),
            ...(this.options.allowLoopback?.('fetch') ? { allowLoopbackForTests: true } : {}),
            ...(this.options.devOutboundOrigins?.length ? { devOrigins: this.options.devOutboundOrigins } : {}),
          })) as unknown as Json;
        } catch (err) {
          // The add-on reads which host and why in the error's message; the operator in the log.
          if (err instanceof AppError && (err.code === 'ADDON_OUTBOUND_REFUSED' || err.code === 'NETWORK_FEATURES_DISABLED'))
            this.addonLog.refusedFetch(addon, err);
          throw err;
        }
      }
    }
    throw new AppError('ADDON_HOST_DENIED', { message: `${capability} is not a host capability.` });
  }
}
