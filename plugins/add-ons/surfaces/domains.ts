import { z } from 'zod';
import { API_PREFIX, AppError, type ErrorIssue, isOwnName, type Kernel } from '../../../kernel/api.js';
import type { InstalledAddon } from '../lifecycle/installed.js';
import type { AddonsDb } from '../tables.js';

/**
 * Host names that serve one app's `public-page` surface (D28 `PUT /surfaces/domains`). The
 * mapping lives in the meta store (`addon_domains`) and is handed to the kernel's host routes,
 * which send every request to such a host either to the public API or under the surface's
 * bundle path; the bundle route and the public gate recognise the host through the kernel.
 */

const POLL_MS = 5000;
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** Two or more labels, the last not all digits (so never an IPv4 literal), optionally `:port`. */
const HOST = new RegExp(`^(?=[^:]{1,253}(?::|$))${LABEL}(?:\\.${LABEL})+(?::(\\d{1,5}))?$`);

export const domainSchema = z
  .strictObject({
    host: z
      .string()
      .min(1)
      .max(260)
      .describe('A lowercase DNS name (`booking.example.com`), optionally with `:port`; no scheme, path or wildcard. Matched against the `Host` header.'),
    appKey: z.string().min(1).max(40).describe("The app's add-on key."),
    surface: z.string().min(1).max(40).describe('A `public-page` surface of the app.'),
    instance: z
      .string()
      .min(1)
      .max(64)
      .nullable()
      .optional()
      .describe('The app instance the page is for (`PUT /surfaces/instances`); null or absent: the app itself.'),
  })
  .meta({ id: 'SurfaceDomainInput' });
export const domainsBody = z.strictObject({ domains: z.array(domainSchema).max(100) });
export const domainView = z
  .strictObject({ host: z.string(), appKey: z.string(), surface: z.string(), instance: z.string().nullable() })
  .meta({ id: 'SurfaceDomain' });
export type DomainView = z.infer<typeof domainView>;

/** The path a mapped host is served under: the app's bundle route for that surface. */
export const surfaceBase = (key: string, surface: string): string => `${API_PREFIX}/add-ons/${key}/bundle/${surface}`;

function hostIssue(host: string, config: Kernel['config']): Omit<ErrorIssue, 'path'> | null {
  const m = HOST.exec(host);
  const name = m ? host.replace(/:\d+$/, '') : '';
  if (!m || /^\d+$/.test(name.slice(name.lastIndexOf('.') + 1)) || (m[1] !== undefined && (Number(m[1]) < 1 || Number(m[1]) > 65535)))
    return { code: 'host-invalid', message: `${host} is not a lowercase DNS name (optionally with :port): no scheme, path, wildcard or IP address.` };
  if (isOwnName(name, config)) return { code: 'host-own', message: `${host} is this instance's own name: the dashboard and the admin API live there.` };
  return null;
}

export class AddonDomains {
  private poller: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly kernel: Kernel,
    private readonly db: AddonsDb,
  ) {}

  async start(): Promise<void> {
    await this.reload();
    // Another replica's PUT is seen here within POLL_MS, as the runtime sees its installs.
    this.poller = setInterval(
      () => void this.reload().catch((err: Error) => this.kernel.log.warn({ err: { message: err.message } }, 'could not reload the mapped domains')),
      POLL_MS,
    );
    this.poller.unref();
  }

  close(): void {
    this.closed = true;
    if (this.poller) clearInterval(this.poller);
  }

  async list(): Promise<DomainView[]> {
    const rows = await this.db.selectFrom('addon_domains').select(['host', 'addon_key', 'surface', 'instance_id']).orderBy('host').execute();
    return rows.map((r) => ({ host: r.host, appKey: r.addon_key, surface: r.surface, instance: r.instance_id }));
  }

  async reload(): Promise<void> {
    const list = await this.list();
    if (this.closed) return;
    this.kernel.hosts.replace(
      list.map((d) => ({ host: d.host, owner: d.appKey, base: surfaceBase(d.appKey, d.surface), detail: { surface: d.surface, instance: d.instance } })),
    );
  }

  /**
   * Every refusal at once, as issues at `body.domains.N.<field>`: `host-invalid`, `host-own`,
   * `host-duplicate`, `unknown-app`, `unknown-surface`, `not-public-page`.
   */
  /** `instances`: each app's named instances (D28); a mapped name may serve one of them, `default` or none meaning the app's own. */
  check(
    domains: ReadonlyArray<z.infer<typeof domainSchema>>,
    installed: readonly InstalledAddon[],
    instances: ReadonlyMap<string, readonly { id: string }[]>,
  ): void {
    const issues: ErrorIssue[] = [];
    const apps = new Map(installed.map((a) => [a.key, a]));
    const seen = new Set<string>();
    domains.forEach((d, i) => {
      const at = (field: string) => `body.domains.${i}.${field}`;
      const bad = hostIssue(d.host, this.kernel.config);
      if (bad) issues.push({ path: at('host'), ...bad });
      // A name with and without a port would both match `Host: name:port`: one of them only.
      const name = d.host.replace(/:\d+$/, '');
      if (seen.has(d.host) || seen.has(name)) issues.push({ path: at('host'), code: 'host-duplicate', message: `${d.host} is mapped twice.` });
      seen.add(d.host);
      seen.add(name);
      const app = apps.get(d.appKey);
      if (!app) {
        issues.push({ path: at('appKey'), code: 'unknown-app', message: `No app ${d.appKey} is installed.` });
        return;
      }
      const surface = app.manifest.surfaces.find((s) => s.name === d.surface);
      if (!surface) issues.push({ path: at('surface'), code: 'unknown-surface', message: `${d.appKey} declares no surface ${d.surface}.` });
      else if (surface.kind !== 'public-page')
        issues.push({
          path: at('surface'),
          code: 'not-public-page',
          message: `${d.surface} is a ${surface.kind}: only a public-page is served on its own host.`,
        });
      if (d.instance && d.instance !== 'default' && !(instances.get(d.appKey) ?? []).some((x) => x.id === d.instance))
        issues.push({ path: at('instance'), code: 'unknown-instance', message: `${d.appKey} has no instance ${d.instance}.` });
    });
    if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
  }

  /** Writes the whole mapping (what is not in `domains` is unmapped) and applies it here at once. */
  async replace(domains: ReadonlyArray<z.infer<typeof domainSchema>>): Promise<{ before: DomainView[]; after: DomainView[] }> {
    const before = await this.list();
    const now = this.kernel.now();
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('addon_domains').execute();
      if (domains.length)
        await trx
          .insertInto('addon_domains')
          .values(domains.map((d) => ({ host: d.host, addon_key: d.appKey, surface: d.surface, instance_id: d.instance ?? null, updated_at: now })))
          .execute();
    });
    await this.reload();
    return { before, after: await this.list() };
  }
}
