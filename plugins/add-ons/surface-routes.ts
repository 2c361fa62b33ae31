import { z } from 'zod';
import { addonKeyField } from '../../addons-sdk/src/manifest/index.js';
import { HANDLED, rawResponse, route } from '../../kernel/contract/route.js';
import { dataOf, errorEnvelopeSchema } from '../../kernel/contract/shapes.js';
import { AppError } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel-services.js';
import type { PublicAdminProvides } from '../public-admin/provides.js';
import {
  bundlePath,
  contentTypeOf,
  frameAncestorsOf,
  injectAppMeta,
  isHashedName,
  mappedPageCsp,
  matchesIfNoneMatch,
  notInBundle,
  strongEtag,
  surfaceCsp,
} from './bundle.js';
import { domainsBody, domainView, type DomainView } from './domains.js';
import type { InstalledAddon } from './installed.js';
import { ADDONS_USE } from './action-routes.js';
import { ADDONS_MANAGE } from './routes.js';
import { addonData } from './schemas.js';
import type { AddonService } from './service.js';

const service = (kernel: Kernel) => kernel.plugin<AddonService>('add-ons');

const bundleParams = z.strictObject({
  key: addonKeyField,
  '*': z.string().max(2048).describe('`<surface>/<file>`: a file inside `surfaces/<surface>/` of the package, e.g. `widget/index.html`.'),
});
const appParams = z.strictObject({ appKey: addonKeyField.describe("The app's add-on key (not its public key).") });

const navSchema = z.strictObject({
  section: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,39}$/)
    .describe('The navigation section the page is listed in (kebab-case, chosen by the operator).'),
  order: z.number().int().min(0).max(10_000).describe('Position in the section, ascending.'),
});
export const surfaceSchema = z
  .strictObject({
    appKey: z.string().describe("The app's add-on key."),
    name: z.string(),
    kind: z.enum(['dashboard-page', 'public-page', 'embed']),
    title: z.string(),
    enabled: z.boolean().describe('Whether the app is enabled: a disabled app serves no files.'),
    url: z.string().describe("The entry file's path on this instance (`/api/v1/add-ons/{key}/bundle/{surface}/{entry}`)."),
    placement: navSchema.nullable().describe('Where a dashboard-page sits in the navigation; null when it is not placed (always null for other kinds).'),
    connectionId: z.string().nullable(),
    instances: z.array(z.strictObject({ id: z.string(), name: z.string(), settings: z.record(z.string(), z.unknown()) })),
    domains: z.array(z.strictObject({ host: z.string(), surface: z.string(), instance: z.string().nullable() })),
  })
  .meta({ id: 'Surface' });
const surfacesData = dataOf(z.strictObject({ surfaces: z.array(surfaceSchema) }));
const placementBody = z.strictObject({ surface: z.string().min(1).max(40), nav: navSchema.nullable() });
const connectionBody = z.strictObject({ connectionId: z.string().min(1).max(64) });

type SurfaceView = z.input<typeof surfaceSchema>;

async function placements(kernel: Kernel, key?: string): Promise<Map<string, { section: string; order: number }>> {
  let q = service(kernel).db.selectFrom('addon_placements').select(['addon_key', 'surface', 'nav_section', 'nav_order']);
  if (key) q = q.where('addon_key', '=', key);
  const rows = await q.execute();
  return new Map(rows.map((r) => [`${r.addon_key}/${r.surface}`, { section: r.nav_section, order: Number(r.nav_order) }]));
}

function surfacesOf(a: InstalledAddon, placed: Map<string, { section: string; order: number }>, domains: readonly DomainView[]): SurfaceView[] {
  return a.manifest.surfaces.map((s) => ({
    appKey: a.key,
    name: s.name,
    kind: s.kind,
    title: s.title,
    enabled: a.enabled,
    url: `/api/v1/add-ons/${a.key}/bundle/${s.name}/${s.entry}`,
    placement: s.kind === 'dashboard-page' ? (placed.get(`${a.key}/${s.name}`) ?? null) : null,
    connectionId: a.connectionId,
    instances: [],
    domains: domains.filter((d) => d.appKey === a.key && d.surface === s.name).map((d) => ({ host: d.host, surface: d.surface, instance: d.instance })),
  }));
}

export const surfaceRoutes = [
  route({
    method: 'GET',
    url: '/add-ons/:key/bundle/*',
    summary: "A file of an installed add-on's surface",
    description:
      "Public: serves the files of the surfaces the add-on's manifest declares (`surfaces/<name>/…` of its installed package) while it is enabled, and nothing else of the package. Content-Type from the file's extension, a strong ETag (304 on If-None-Match), `Cache-Control: public, max-age=31536000, immutable` for names carrying a hex content hash (`app.3f9a1c2b.js`) and `no-cache` otherwise, and a CSP that reaches only the add-on's own files and this instance's public API, with `sandbox allow-scripts allow-forms`. HTML files get `<meta name=\"svc-app\" content=\"{appKey, apiBase}\">`. On a host name mapped by `PUT /surfaces/domains` the mapped surface's files are served at that host's root instead (`/` is the entry), with a same-origin CSP (`'self'`, no `sandbox`) and `apiBase` on that host. 400 BAD_REQUEST (params.reason `path-invalid`) for a malformed path (`..`, encoded dots, `%` left after decoding, backslash, NUL, empty segments); 404 ADDON_NOT_FOUND when the add-on is not installed or disabled; 404 NOT_FOUND for a file that is not in a declared surface.",
    public: true,
    tags: ['Add-ons'],
    schema: {
      params: bundleParams,
      response: {
        200: rawResponse('application/octet-stream', 'The file, with the Content-Type of its extension.'),
        304: rawResponse('application/octet-stream', 'Not modified: the ETag in If-None-Match is current (no body).'),
        400: errorEnvelopeSchema,
        404: errorEnvelopeSchema,
      },
    },
    handler: async ({ kernel, params, request, reply: res }): Promise<typeof HANDLED> => {
      const s = service(kernel);
      // On a mapped host (D28) every path arrives here under the mapped surface (kernel/http/host-routes.ts); `/` as the bare surface.
      const mapped = kernel.hosts.match(request.headers.host);
      const root = mapped !== null && params['*'] === mapped.detail?.['surface'];
      const target = root ? null : bundlePath(params['*']);
      if (!root && !target)
        throw new AppError('BAD_REQUEST', {
          message: 'The file path is not valid: segments of letters, digits and ._~@+- only, none empty or starting with a dot.',
          params: { reason: 'path-invalid' },
        });
      const installed = await s.installed.get(params.key);
      if (!installed || !installed.enabled) throw new AppError('ADDON_NOT_FOUND', { params: { key: params.key } });
      const surface = installed.manifest.surfaces.find((x) => x.name === (target?.surface ?? params['*']));
      // A mapping written between the rewrite and here, or an upgrade that made the surface another kind: nothing to serve.
      if (!surface || (mapped && (mapped.owner !== installed.key || surface.kind !== 'public-page'))) throw notInBundle(params.key, params['*']);
      const path = target ? params['*'] : `${surface.name}/${surface.entry}`;
      const fileName = target?.file ?? surface.entry;
      const dir = await s.packages.unpacked(installed.key, installed.version);
      const file = (await s.surfaceFiles.index(dir, installed.manifest)).get(path);
      if (!file) throw notInBundle(params.key, path);

      const origin = mapped
        ? `${request.protocol}://${request.headers.host!.toLowerCase()}`
        : (kernel.config.baseUrl ?? `${request.protocol}://${request.host}`);
      let { bytes, etag } = await s.surfaceFiles.read(file);
      if (/\.html?$/i.test(fileName)) {
        const appKey = (await kernel.plugin<PublicAdminProvides>('public-admin').apps.appKeySecret(installed.key))?.secret ?? null;
        bytes = Buffer.from(injectAppMeta(bytes.toString('utf8'), { appKey, apiBase: `${origin}/api/v1/public` }), 'utf8');
        etag = strongEtag(bytes);
      }
      res.removeHeader('x-frame-options');
      res
        .header('etag', etag)
        .header('cache-control', isHashedName(fileName) ? 'public, max-age=31536000, immutable' : 'no-cache')
        .header('x-content-type-options', 'nosniff');
      if (mapped) {
        // Its own origin already keeps it apart from the dashboard: no sandbox, and same-origin loads need no CORS.
        // A browser ignores COOP on a plain-http origin that is not loopback, and says so in every visitor's console.
        if (request.protocol === 'http') res.removeHeader('cross-origin-opener-policy');
        res.header('content-security-policy', mappedPageCsp(frameAncestorsOf(surface.kind, "'self'", kernel.config.publicApiOrigins)));
      } else {
        res
          .header(
            'content-security-policy',
            surfaceCsp({ origin, key: installed.key, frameAncestors: frameAncestorsOf(surface.kind, origin, kernel.config.publicApiOrigins) }),
          )
          // The sandboxed page has an opaque origin: its module scripts and styles are cross-origin loads.
          .header('cross-origin-resource-policy', 'cross-origin')
          .header('access-control-allow-origin', '*');
      }
      if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
        await res.code(304).send();
        return HANDLED;
      }
      await res.code(200).header('content-type', contentTypeOf(fileName)).header('content-length', String(bytes.length)).send(bytes);
      return HANDLED;
    },
  }),
  route({
    method: 'GET',
    url: '/surfaces',
    summary: "Installed apps' surfaces",
    description:
      "Each installed app's surfaces with their entry URL, their place in the dashboard's navigation (dashboard-page only), the connection the app's tables are on and the host names mapped to it (`PUT /surfaces/domains`). `instances` is empty until that operation exists. Needs add-ons.use (editor by default): the people who work in the apps' pages are the ones whose navigation lists them.",
    permission: ADDONS_USE,
    tags: ['Surfaces'],
    schema: { response: { 200: surfacesData } },
    handler: async ({ kernel }) => {
      const [installed, placed, domains] = await Promise.all([service(kernel).installed.list(), placements(kernel), service(kernel).domains.list()]);
      return { data: { surfaces: installed.flatMap((a) => surfacesOf(a, placed, domains)) } };
    },
  }),
  route({
    method: 'PUT',
    url: '/surfaces/:appKey/placement',
    summary: "Place a dashboard page in the dashboard's navigation",
    description:
      '`nav: {section, order}` lists the `dashboard-page` surface in the navigation (rendered in a sandboxed iframe); `nav: null` takes it out. 400 VALIDATION_FAILED (issue at body.surface) for a surface the app does not declare or one of another kind; 404 ADDON_NOT_FOUND.',
    permission: ADDONS_MANAGE,
    tags: ['Surfaces'],
    schema: { params: appParams, body: placementBody, response: { 200: surfacesData, 400: errorEnvelopeSchema, 404: errorEnvelopeSchema } },
    handler: async ({ kernel, params, body, audit }) => {
      const s = service(kernel);
      const a = await s.require(params.appKey);
      const surface = a.manifest.surfaces.find((x) => x.name === body.surface);
      if (!surface || surface.kind !== 'dashboard-page')
        throw new AppError('VALIDATION_FAILED', {
          issues: [
            surface
              ? { path: 'body.surface', code: 'not-placeable', message: `${body.surface} is a ${surface.kind}: only a dashboard-page goes in the navigation.` }
              : { path: 'body.surface', code: 'unknown-surface', message: `${params.appKey} declares no surface ${body.surface}.` },
          ],
        });
      const before = (await placements(kernel, a.key)).get(`${a.key}/${surface.name}`) ?? null;
      await s.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('addon_placements').where('addon_key', '=', a.key).where('surface', '=', surface.name).execute();
        if (body.nav)
          await trx
            .insertInto('addon_placements')
            .values({ addon_key: a.key, surface: surface.name, nav_section: body.nav.section, nav_order: body.nav.order, updated_at: kernel.now() })
            .execute();
      });
      audit({ action: 'surfaces.placement', target: { type: 'addon', id: a.key }, diff: { surface: surface.name, before, after: body.nav } });
      return { data: { surfaces: surfacesOf(a, await placements(kernel, a.key), await s.domains.list()) } };
    },
  }),
  route({
    method: 'PUT',
    url: '/surfaces/:appKey/connection',
    summary: "Move an app's tables to another connection",
    description:
      "Creates the app's tables on the connection (tables it already holds in the declared shape are kept) and points its endpoints there. 409 ADDON_TABLES_NOT_EMPTY (params.tables) while a table on the current connection holds rows; 409 ADDON_CONFLICT when the connection holds a table of that name in another shape; 409 CONFLICT for a read-only connection. The old, empty tables are left in place.",
    permission: ADDONS_MANAGE,
    tags: ['Surfaces'],
    schema: {
      params: appParams,
      body: connectionBody,
      response: { 200: addonData, 400: errorEnvelopeSchema, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema, 502: errorEnvelopeSchema },
    },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const s = service(kernel);
      const { before, after } = await s.moveConnection(principal?.userId ?? null, params.appKey, body.connectionId);
      audit({ action: 'surfaces.connection', target: { type: 'addon', id: params.appKey }, diff: { before: before.connectionId, after: after.connectionId } });
      return { data: { addon: await s.view(after) } };
    },
  }),
  route({
    method: 'PUT',
    url: '/surfaces/domains',
    summary: 'Serve public pages on their own host names',
    description:
      "Replaces the whole mapping of host names to `public-page` surfaces (an empty list unmaps every name). A request whose `Host` is a mapped name (exactly, or any port when the name was mapped without one) gets only the surface (`/` is its entry, `/<file>` its files, with the app key and a same-origin `apiBase` in the meta tag, no CSP sandbox) and the public API, where the app's own key is admitted from that origin without SVC_PUBLIC_API_ORIGINS listing it; every other path there answers 404. The public API must be served and switched on as for any page. 400 VALIDATION_FAILED with an issue per refused item at `body.domains.N.<field>`: `host-invalid` (not a lowercase DNS name with an optional :port), `host-own` (the instance's own name: SVC_BASE_URL's host, SVC_HOST, a loopback name), `host-duplicate`, `unknown-app`, `unknown-surface`, `not-public-page`.",
    permission: ADDONS_MANAGE,
    tags: ['Surfaces'],
    schema: { body: domainsBody, response: { 200: dataOf(z.strictObject({ domains: z.array(domainView) })), 400: errorEnvelopeSchema } },
    handler: async ({ kernel, body, audit }) => {
      const s = service(kernel);
      s.domains.check(body.domains, await s.installed.list());
      const { before, after } = await s.domains.replace(body.domains);
      audit({ action: 'surfaces.domains', target: null, diff: { before, after } });
      return { data: { domains: after } };
    },
  }),
];
