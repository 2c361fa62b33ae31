import { createHash, randomUUID } from 'node:crypto';
import type { Kernel } from '../../kernel/api.js';
import { addonsRef } from '../add-ons/provides.js';
import { connectionsRef } from '../connections/provides.js';
import { pagesRef } from '../pages/provides.js';
import { publicAdminRef } from '../public-admin/provides.js';
import { settingsRef } from '../settings/provides.js';

export const TELEMETRY_JOB = 'workspace.telemetry';
export const TELEMETRY_SCHEDULE_OWNER = 'telemetry';
const SETTINGS_KEY = 'telemetry';

/** What the settings store keeps (BR3): the admin's switch, the instance's random id, the last report sent. */
export interface TelemetryState {
  enabled: boolean;
  instanceId: string;
  lastSentAt: number | null;
}

/** A count as a bucket: the report says how big, never exactly how many. */
export function bucket(n: number): string {
  if (n <= 0) return '0';
  if (n === 1) return '1';
  for (const [lo, hi] of [
    [2, 5],
    [6, 10],
    [11, 50],
    [51, 100],
    [101, 500],
    [501, 1000],
  ] as const)
    if (n <= hi) return `${lo}-${hi}`;
  return '1001+';
}

export async function telemetryState(kernel: Kernel): Promise<TelemetryState> {
  const stored = await kernel.settings.get<Partial<TelemetryState>>(SETTINGS_KEY);
  if (stored?.instanceId) return { enabled: stored.enabled === true, instanceId: stored.instanceId, lastSentAt: stored.lastSentAt ?? null };
  const fresh: TelemetryState = { enabled: false, instanceId: randomUUID(), lastSentAt: null };
  await kernel.settings.set(SETTINGS_KEY, fresh);
  return fresh;
}

export const saveTelemetryState = (kernel: Kernel, state: TelemetryState) => kernel.settings.set(SETTINGS_KEY, state);

/** Whether a report goes out: the admin's switch, a URL to send it to, and the instance allowed to call out. */
export const telemetryActive = (kernel: Kernel, state: TelemetryState) => state.enabled && kernel.config.telemetryUrl !== null && kernel.config.networkFeatures;

/**
 * The report, exactly as it would be sent now (BR3): a random instance id, versions, the meta
 * store's dialect, counts in buckets and features on or off. No name, e-mail, URL, table name or
 * add-on key that the instance does not ship.
 */
export async function telemetryReport(kernel: Kernel, state: TelemetryState) {
  const [connections, pages, users, addons, publicApi, smtp, security] = await Promise.all([
    kernel.plugin(connectionsRef).list(),
    kernel.plugin(pagesRef).all(),
    kernel.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow(),
    kernel.plugin(addonsRef).installedKeys(),
    kernel.plugin(publicAdminRef).state(),
    kernel.mailer.configured(),
    kernel.plugin(settingsRef).security(),
  ]);
  const byDialect = (d: string) => bucket(connections.filter((c) => c.dialect === d).length);
  const builtIn: Record<string, string> = {};
  for (const a of addons.filter((x) => x.builtIn)) builtIn[a.key] = bucket(1);
  return {
    instanceId: state.instanceId,
    version: kernel.version,
    node: Number(process.versions.node.split('.')[0]),
    runtime: kernel.config.runtime,
    meta: kernel.meta.dialect,
    counts: {
      connections: { postgres: byDialect('postgres'), mysql: byDialect('mysql'), sqlite: byDialect('sqlite') },
      users: bucket(Number(users.n)),
      pages: bucket(pages.filter((p) => p.generatedKey === null).length),
      dashboards: bucket(pages.filter((p) => p.kind === 'dashboard').length),
      addons: { builtIn, other: bucket(addons.filter((x) => !x.builtIn).length) },
    },
    features: {
      publicApi: publicApi.enabled && publicApi.served,
      email: smtp,
      requiredTwoFactor: security.requireTwoFactorForRoles.length > 0,
      fileStore: kernel.config.fileStore,
    },
  };
}
export type TelemetryReport = Awaited<ReturnType<typeof telemetryReport>>;

/** The weekly due time, a minute and hour of Monday chosen by the instance id so instances do not all send at once. */
export function telemetryCron(instanceId: string): string {
  const h = createHash('sha256').update(instanceId).digest();
  return `${h[0]! % 60} ${h[1]! % 24} * * 1`;
}

/** The job: one POST of the report, 5 s at most, one attempt (a missed week is no loss). */
export async function sendTelemetry(kernel: Kernel, signal: AbortSignal): Promise<{ sent: boolean; status?: number }> {
  const state = await telemetryState(kernel);
  if (!telemetryActive(kernel, state)) return { sent: false };
  const report = await telemetryReport(kernel, state);
  const res = await fetch(kernel.config.telemetryUrl!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(report),
    signal: AbortSignal.any([signal, AbortSignal.timeout(5000)]),
    redirect: 'error',
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`the telemetry endpoint answered ${res.status}`);
  await saveTelemetryState(kernel, { ...state, lastSentAt: kernel.now() });
  return { sent: true, status: res.status };
}
