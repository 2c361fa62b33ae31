import { z } from 'zod';
import { addonKeyField } from '../../../addons-sdk/src/manifest/index.js';
import {
  AppError,
  dataOf,
  DOCUMENT_ONLY,
  errorEnvelopeSchema,
  HANDLED,
  isOwnHost,
  type Kernel,
  matchesIfNoneMatch,
  rawResponse,
  route,
  strongEtag,
} from '../../../kernel/api.js';
import { pagesRef } from '../../pages/provides.js';
import { publicAdminRef } from '../../public-admin/provides.js';
import {
  bundlePath,
  contentTypeOf,
  frameAncestorsOf,
  injectAppMeta,
  isHashedName,
  mappedPageCsp,
  notInBundle,
  publicPageNotice,
  surfaceCsp,
} from './bundle.js';
import { domainsBody, domainView, type DomainView } from './domains.js';
import type { InstalledAddon } from '../lifecycle/installed.js';
import { ADDONS_USE } from '../runtime/action-routes.js';
import { instanceIdField, type AppInstance } from '../lifecycle/instances.js';
import { settingsView } from '../lifecycle/settings-values.js';
import { ADDONS_MANAGE } from '../routes.js';
import { addonData } from '../schemas.js';
import { addonServiceRef } from '../service.js';

const service = (kernel: Kernel) => kernel.plugin(addonServiceRef);

const bundleParams = z.strictObject({
  key: addonKeyField,
  '*': z.string().max(2048).describe('`<surface>/<file>`: a file inside `surfaces/<surface>/` of the package, e.g. `widget/index.html`.'),
});
const bundleQuery = z.object({
  instance: instanceIdField
    .optional()
    .describe(
      "HTML files only: carry this named instance's app key (D28) instead of the app's own; 404 ADDON_INSTANCE_NOT_FOUND for an instance the app does not have.",
    ),
});
const appParams = z.strictObject({ appKey: addonKeyField.describe("The app's add-on key (not its public key).") });

const navSchema = z.strictObject({
  section: z
    .string()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
    .max(40)
    .describe(
      "The navigation section the page is listed in (kebab-case, 1–40): a section of the pages plugin's navigation, made (titled from the id) when it does not exist yet.",
    ),
  order: z.number().int().min(0).max(10_000).describe('Position in the section, ascending.'),
});
const instanceSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    settings: z.record(z.string(), z.unknown()).describe("The instance's settings, secrets left out."),
    secretsSet: z.array(z.string()).describe('The secret settings that hold a value.'),
    appKeyId: z.string().nullable().describe("The instance's app key (null when the app has no endpoints): its surfaces carry it."),
    keyPrefix: z.string().nullable(),
  })
  .meta({ id: 'AppInstance' });
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
    instances: z
      .array(instanceSchema)
      .describe("The app's named instances (D28), in the operator's order; empty while the app runs once (its default instance)."),
    domains: z.array(z.strictObject({ host: z.string(), surface: z.string(), instance: z.string().nullable() })),
    usableAt: z
      .strictObject({
        dashboard: z.boolean().describe('A dashboard-page: usable inside the dashboard (placed in the navigation), by people signed in.'),
        domains: z.array(z.string()).describe('A public-page: the host names mapped to it, the only places its page can call the public API with its key.'),
        origins: z.array(z.string()).describe('An embed: the sites (SVC_PUBLIC_API_ORIGINS) whose pages may frame it and call the public API.'),
      })
      .describe(
        'Where the surface works (AO30). A public-page opened at its bundle URL cannot call the API (its sandboxed origin sends `Origin: null`, AO16): with no mapped domain it is usable nowhere yet.',
      ),
  })
  .meta({ id: 'Surface' });
const surfacesData = dataOf(z.strictObject({ surfaces: z.array(surfaceSchema) }));
const placementBody = z.strictObject({ surface: z.string().min(1).max(40), nav: navSchema.nullable() });
const connectionBody = z.strictObject({ connectionId: z.string().min(1).max(64) });

type SurfaceView = z.input<typeof surfaceSchema>;

/** Where the apps' dashboard pages sit: read from the one navigation of the pages plugin (decisions PG10). */
const placements = (kernel: Kernel, key?: string): Promise<Map<string, { section: string; order: number }>> => kernel.plugin(pagesRef).nav.placements(key);

type InstanceView = z.input<typeof instanceSchema>;

async function instanceViews(kernel: Kernel, a: InstalledAddon, list?: AppInstance[]): Promise<InstanceView[]> {
  const instances = list ?? (await service(kernel).instances.list(a.key));
  if (!instances.length) return [];
  const keys = await kernel.plugin(publicAdminRef).apps.instanceKeys(a.key);
  return instances.map((i) => {
    const { values, secretsSet } = settingsView(a.manifest.settings, i.settings);
    const k = keys.get(i.id) ?? null;
    return { id: i.id, name: i.name, settings: values, secretsSet, appKeyId: k?.id ?? null, keyPrefix: k?.prefix ?? null };
  });
}

function surfacesOf(
  a: InstalledAddon,
  placed: Map<string, { section: string; order: number }>,
  domains: readonly DomainView[],
  instances: InstanceView[] = [],
  origins: readonly string[] = [],
): SurfaceView[] {
  return a.manifest.surfaces.map((s) => ({
    appKey: a.key,
    name: s.name,
    kind: s.kind,
    title: s.title,
    enabled: a.enabled,
    url: `/api/v1/add-ons/${a.key}/bundle/${s.name}/${s.entry}`,
    placement: s.kind === 'dashboard-page' ? (placed.get(`${a.key}/${s.name}`) ?? null) : null,
    connectionId: a.connectionId,
    instances,
    domains: domains.filter((d) => d.appKey === a.key && d.surface === s.name).map((d) => ({ host: d.host, surface: d.surface, instance: d.instance })),
    usableAt: {
      dashboard: s.kind === 'dashboard-page',
      domains: s.kind === 'public-page' ? domains.filter((d) => d.appKey === a.key && d.surface === s.name).map((d) => d.host) : [],
      origins: s.kind === 'embed' ? [...origins] : [],
    },
  }));
}

export const surfaceRoutes = [
  route({
    method: 'GET',
    url: '/add-ons/:key/bundle/*',
    summary: "A file of an installed add-on's surface",
    description:
      "Public: serves the files of the surfaces the add-on's manifest declares (`surfaces/<name>/…` of its installed package) while it is enabled, and nothing else of the package. Content-Type from the file's extension, a strong ETag (304 on If-None-Match), `Cache-Control: public, max-age=31536000, immutable` for names carrying a hex content hash (`app.3f9a1c2b.js`) and `no-cache` otherwise, and a CSP that reaches only the add-on's own files and this instance's public API, with `sandbox allow-scripts allow-forms`. HTML files get `<meta name=\"svc-app\" content=\"{appKey, apiBase}\">`: the app key of the app (its default instance), or with `?instance=<id>` the key of that instance (D28). On a host name mapped by `PUT /surfaces/domains` the mapped surface's files are served at that host's root instead (`/` is the entry), with a same-origin CSP (`'self'`, no `sandbox`) and `apiBase` on that host. 400 BAD_REQUEST (params.reason `path-invalid`) for a malformed path (`..`, encoded dots, `%` left after decoding, backslash, NUL, empty segments); 404 ADDON_NOT_FOUND when the add-on is not installed or disabled; 404 ADDON_INSTANCE_NOT_FOUND for an unknown `instance`; 404 NOT_FOUND for a file that is not in a declared surface. A public-page's HTML requested as a top-level document (`Sec-Fetch-Dest: document`) on the instance's own host answers a short page explaining how to publish it on a mapped name instead (it could not call the API there, AO30). 421 HOST_NOT_ALLOWED when SVC_BASE_URL is not set and the `Host` is not one of the instance's own names (the CSP and the API base are built from configured names only).",
    public: true,
    tags: ['Add-ons'],
    schema: {
      params: bundleParams,
      query: bundleQuery,
      response: {
        200: rawResponse('application/octet-stream', 'The file, with the Content-Type of its extension.'),
        304: rawResponse('application/octet-stream', 'Not modified: the ETag in If-None-Match is current (no body).'),
        400: errorEnvelopeSchema,
        404: errorEnvelopeSchema,
        421: errorEnvelopeSchema,
      },
    },
    handler: async ({ kernel, params, query, request, reply: res }): Promise<typeof HANDLED> => {
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

      // Never the raw Host (issue 26 point 28): a forged one would write its own sources into the CSP of a cacheable answer.
      const scheme = request.protocol === 'https' ? 'https' : 'http';
      let origin: string;
      // A mapped or own Host is a known name (a trailing dot kept: it is the page's own origin) and digits of a port.
      if (mapped || (!kernel.config.baseUrl && isOwnHost(request, kernel.config))) origin = `${scheme}://${request.headers.host!.trim().toLowerCase()}`;
      else if (kernel.config.baseUrl) origin = kernel.config.baseUrl;
      else throw new AppError('HOST_NOT_ALLOWED', { params: { host: null } });
      const isDocument = /\.html?$/i.test(fileName);
      if (!mapped && isDocument && surface.kind === 'public-page' && request.headers['sec-fetch-dest'] === 'document') {
        // Opened in a browser's tab at its bundle URL it could not call the API (AO16): say how to publish it instead (AO30).
        const notice = Buffer.from(publicPageNotice(surface.title), 'utf8');
        await res
          .code(200)
          .header('content-type', 'text/html; charset=utf-8')
          .header('cache-control', 'no-cache')
          .header('vary', 'Sec-Fetch-Dest')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
          .header('content-length', String(notice.length))
          .send(notice);
        return HANDLED;
      }
      let { bytes, etag } = await s.surfaceFiles.read(file);
      if (isDocument) {
        // A mapped name may be one instance's page (D28): it carries that instance's key.
        const instance = mapped ? (mapped.detail?.['instance'] ?? null) : (query.instance ?? null);
        const appKey = (await s.lifecycle.appKeyFor(installed.key, instance))?.secret ?? null;
        bytes = Buffer.from(injectAppMeta(bytes.toString('utf8'), { appKey, apiBase: `${origin}/api/v1/public` }), 'utf8');
        etag = strongEtag(bytes);
      }
      res.removeHeader('x-frame-options');
      if (!mapped && isDocument && surface.kind === 'public-page') res.header('vary', 'Sec-Fetch-Dest');
      res
        .header('etag', etag)
        .header('cache-control', isHashedName(fileName) ? 'public, max-age=31536000, immutable' : 'no-cache')
        .header('x-content-type-options', 'nosniff');
      if (isDocument) {
        res.header('referrer-policy', DOCUMENT_ONLY['referrer-policy']);
        // A browser ignores COOP on a plain-http origin that is not loopback, and says so in every visitor's console.
        if (!(mapped && request.protocol === 'http')) res.header('cross-origin-opener-policy', DOCUMENT_ONLY['cross-origin-opener-policy']);
      }
      if (mapped) {
        // Its own origin already keeps it apart from the dashboard: no sandbox, and same-origin loads need no CORS.
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
      "Each installed app's surfaces with their entry URL, their place in the dashboard's navigation (dashboard-page only), the connection the app's tables are on, the app's named instances (D28) with their keys and the host names mapped to it (`PUT /surfaces/domains`). Needs add-ons.use (editor by default): the people who work in the apps' pages are the ones whose navigation lists them.",
    permission: ADDONS_USE,
    tags: ['Surfaces'],
    schema: { response: { 200: surfacesData } },
    handler: async ({ kernel }) => {
      const s = service(kernel);
      const [installed, placed, domains, all] = await Promise.all([s.installed.list(), placements(kernel), s.domains.list(), s.instances.all()]);
      const views = await Promise.all(installed.map((a) => instanceViews(kernel, a, all.get(a.key) ?? [])));
      return { data: { surfaces: installed.flatMap((a, i) => surfacesOf(a, placed, domains, views[i], kernel.config.publicApiOrigins)) } };
    },
  }),
  route({
    method: 'PUT',
    url: '/surfaces/:appKey/placement',
    summary: "Place a dashboard page in the dashboard's navigation",
    description:
      "`nav: {section, order}` lists the `dashboard-page` surface in the navigation (rendered in a sandboxed iframe); `nav: null` takes it out. The navigation is the pages plugin's one store (PUT /pages/nav-order arranges it whole; decisions PG10): `order` sorts the entry among the section's entries. 400 VALIDATION_FAILED (issue at body.surface) for a surface the app does not declare or one of another kind; 404 ADDON_NOT_FOUND.",
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
      await kernel.plugin(pagesRef).nav.place(a.key, surface.name, body.nav);
      audit({ action: 'surfaces.placement', target: { type: 'addon', id: a.key }, diff: { surface: surface.name, before, after: body.nav } });
      return {
        data: {
          surfaces: surfacesOf(a, await placements(kernel, a.key), await s.domains.list(), await instanceViews(kernel, a), kernel.config.publicApiOrigins),
        },
      };
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
      const { before, after } = await s.lifecycle.moveConnection(principal?.userId ?? null, params.appKey, body.connectionId);
      audit({ action: 'surfaces.connection', target: { type: 'addon', id: params.appKey }, diff: { before: before.connectionId, after: after.connectionId } });
      return { data: { addon: await s.view(after) } };
    },
  }),
  route({
    method: 'PUT',
    url: '/surfaces/domains',
    summary: 'Serve public pages on their own host names',
    description:
      "Replaces the whole mapping of host names to `public-page` surfaces (an empty list unmaps every name). A request whose `Host` is a mapped name (exactly, or any port when the name was mapped without one) gets only the surface (`/` is its entry, `/<file>` its files, with the app key and a same-origin `apiBase` in the meta tag, no CSP sandbox) and the public API, where the app's own key is admitted from that origin without SVC_PUBLIC_API_ORIGINS listing it; every other path there answers 404. The public API must be served and switched on as for any page. 400 VALIDATION_FAILED with an issue per refused item at `body.domains.N.<field>`: `host-invalid` (not a lowercase DNS name with an optional :port), `host-own` (the instance's own name: SVC_BASE_URL's host, SVC_HOST, a loopback name), `host-duplicate`, `unknown-app`, `unknown-surface`, `not-public-page`, `unknown-instance` (an `instance` the app does not have; none or `default` is the app's own).",
    permission: ADDONS_MANAGE,
    tags: ['Surfaces'],
    schema: { body: domainsBody, response: { 200: dataOf(z.strictObject({ domains: z.array(domainView) })), 400: errorEnvelopeSchema } },
    handler: async ({ kernel, body, audit }) => {
      const s = service(kernel);
      const [installed, instances] = await Promise.all([s.installed.list(), s.instances.all()]);
      s.domains.check(body.domains, installed, instances);
      const { before, after } = await s.domains.replace(body.domains);
      audit({ action: 'surfaces.domains', target: null, diff: { before, after } });
      return { data: { domains: after } };
    },
  }),
  route({
    method: 'PUT',
    url: '/surfaces/instances',
    summary: 'Run one app several times (instances)',
    description:
      "Sets the app's named instances (D28), e.g. two venues of one table-booking app, in the given order. Each instance has its own settings (checked against the app's settings schema; a setting left out keeps the instance's value, or for a new instance the app's own; `null` clears it; secrets are write-only) and its own app key. Every app table carries the instance column `svc_instance`: an instance's key reaches, through every endpoint of the app, only rows holding its id (reads, get by id, writes and booking capacity alike), and a row it writes always holds its id; hooks and actions run for an instance get its settings, and their `ctx.db` sees its rows alone. The app's own key stays the key of its default instance (`default`, the rows made before instances existed). An empty list leaves the app running once. " +
      'An instance left out of the list is removed and its key revoked; 409 ADDON_INSTANCE_NOT_EMPTY (params.instance, params.table) while any app table holds rows of it. The key of an instance created by this call is answered once in `created` (it can be revealed again like any browser key; its surfaces carry it with `?instance=<id>`). ' +
      "400 VALIDATION_FAILED for an id that is not kebab-case (1–40), `default`, or listed twice; 400 ADDON_SETTINGS_INVALID (issues at body.instances.<n>.settings.<name>) for settings the app's schema refuses; 404 ADDON_NOT_FOUND.",
    permission: ADDONS_MANAGE,
    tags: ['Surfaces'],
    schema: {
      body: z.strictObject({
        appKey: addonKeyField.describe("The app's add-on key."),
        instances: z
          .array(
            z.strictObject({
              id: instanceIdField.describe("Kebab-case, 1–40; `default` is the app's own instance and cannot be listed."),
              name: z.string().trim().min(1).max(120),
              settings: z.record(z.string(), z.unknown()).optional(),
            }),
          )
          .max(50),
      }),
      response: {
        200: dataOf(
          z.strictObject({
            appKey: z.string(),
            instances: z.array(instanceSchema),
            created: z
              .array(z.strictObject({ instance: z.string(), appKeyId: z.string(), keyPrefix: z.string(), secret: z.string() }))
              .describe('Keys made for new instances, with their secret (shown once here; browser keys, so GET /public-keys/{id}/reveal shows it again).'),
          }),
        ),
        400: errorEnvelopeSchema,
        404: errorEnvelopeSchema,
        409: errorEnvelopeSchema,
        502: errorEnvelopeSchema,
      },
    },
    handler: async ({ kernel, body, principal, audit }) => {
      const s = service(kernel);
      const { before, after, created } = await s.lifecycle.putInstances(principal?.userId ?? null, body.appKey, body.instances);
      const a = await s.require(body.appKey);
      audit({
        action: 'surfaces.instances',
        target: { type: 'addon', id: a.key },
        diff: { before: before.map((i) => ({ id: i.id, name: i.name })), after: after.map((i) => ({ id: i.id, name: i.name })) },
      });
      return {
        data: {
          appKey: a.key,
          instances: await instanceViews(kernel, a, after),
          created: created.map((k) => ({ instance: k.instance, appKeyId: k.keyId, keyPrefix: k.prefix, secret: k.secret! })),
        },
      };
    },
  }),
];
