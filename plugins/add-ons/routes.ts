import { createWriteStream, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  AppError,
  errorEnvelopeSchema,
  type Kernel,
  linkBase,
  multipartBodyError,
  multipartFile,
  noBody,
  reply,
  requireUser,
  route,
} from '../../kernel/api.js';
import { PACKAGE_MAX_BYTES, type RefreshResult } from './lifecycle/catalog.js';
import type { StagedPackage } from './lifecycle/packages.js';
import {
  addonData,
  addonListData,
  catalogData,
  connectBody,
  downloadBody,
  installBody,
  keyParams,
  oauthCompleteBody,
  oauthStartData,
  patchBody,
  planData,
  planQuery,
  removedData,
  removeQuery,
  sourcesBody,
  stagedData,
  stagedParams,
  upgradeBody,
} from './schemas.js';
import { addonServiceRef } from './service.js';

export const ADDONS_READ = 'add-ons.read';
export const ADDONS_MANAGE = 'add-ons.manage';
const tags = ['Add-ons'];
const service = (kernel: Kernel) => kernel.plugin(addonServiceRef);
const errors = { 400: errorEnvelopeSchema, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema };

const stagedView = (s: StagedPackage) => ({
  key: s.key,
  version: s.version,
  name: s.manifest.name,
  sha256: s.sha256,
  size: s.size,
  verified: s.verified,
  source: s.source,
  stagedAt: s.stagedAt,
});

async function catalogView(kernel: Kernel, refresh?: RefreshResult[]) {
  const s = service(kernel);
  const [entries, installed, staged] = await Promise.all([s.catalog.entries(), s.installed.list(), s.packages.list()]);
  return {
    data: {
      sources: await s.catalog.sources(),
      refreshedAt: await s.catalog.lastRefresh(),
      addons: entries.map((e) => {
        const i = installed.find((a) => a.key === e.key);
        return {
          key: e.key,
          name: e.name,
          description: e.description,
          source: e.source,
          versions: e.versions.map(({ url: _url, ...v }) => v),
          installed: i ? { version: i.version, enabled: i.enabled } : null,
          staged: staged.filter((p) => p.key === e.key).map((p) => ({ version: p.version, verified: p.verified, sha256: p.sha256 })),
        };
      }),
      ...(refresh ? { refresh } : {}),
    },
  };
}

export const addonRoutes = [
  route({
    method: 'GET',
    url: '/add-ons/catalog',
    summary: 'The add-on catalog',
    description:
      'The built-in catalog shipped with the instance (works offline) and the remote indexes last fetched, with what of each is installed or staged.',
    permission: ADDONS_READ,
    tags,
    schema: { response: { 200: catalogData } },
    handler: async ({ kernel }) => catalogView(kernel),
  }),
  route({
    method: 'PUT',
    url: '/add-ons/catalog',
    summary: 'Set the remote catalog sources',
    description: 'Index URLs (http or https) fetched by POST /add-ons/catalog/refresh. A source removed here is forgotten with its index.',
    permission: ADDONS_MANAGE,
    tags,
    schema: { body: sourcesBody, response: { 200: catalogData, 400: errorEnvelopeSchema } },
    handler: async ({ kernel, body, audit }) => {
      const before = await service(kernel).catalog.sources();
      await service(kernel).catalog.setSources(body.sources);
      audit({ action: 'add-ons.catalog.sources', target: { type: 'addon-catalog', id: null }, diff: { before, after: body.sources } });
      return catalogView(kernel);
    },
  }),
  route({
    method: 'POST',
    url: '/add-ons/catalog/refresh',
    summary: 'Fetch the remote catalog indexes',
    description:
      '409 NETWORK_FEATURES_DISABLED when network features are off. A source that fails keeps its last good index; `refresh` says which failed and why.',
    permission: ADDONS_MANAGE,
    tags,
    schema: { body: noBody, response: { 200: catalogData, 409: errorEnvelopeSchema } },
    handler: async ({ kernel }) => catalogView(kernel, await service(kernel).catalog.refresh()),
  }),
  route({
    method: 'POST',
    url: '/add-ons/download',
    summary: 'Download and stage a catalog version',
    description:
      'Fetches the package a catalog lists (the built-in catalog reads it from disk), checks its size and sha256 (400 ADDON_INTEGRITY), checks the package (400 ADDON_PACKAGE_INVALID) and stages it, marked verified.',
    permission: ADDONS_MANAGE,
    tags,
    schema: { body: downloadBody, response: { 201: stagedData, ...errors, 502: errorEnvelopeSchema } },
    handler: async ({ kernel, body, principal, audit }) => {
      const { bytes, source } = await service(kernel).catalog.download(body.key, body.version);
      const staged = await service(kernel).packages.stageBytes(bytes, { source, verified: true, by: principal?.userId ?? null });
      if (staged.key !== body.key || staged.version !== body.version) {
        await service(kernel).packages.remove(staged.key, staged.version);
        throw new AppError('ADDON_INTEGRITY', {
          message: `The package is ${staged.key} ${staged.version}, not what the index lists.`,
          params: { key: body.key, version: body.version },
        });
      }
      audit({ action: 'add-ons.download', target: { type: 'addon', id: staged.key }, diff: stagedView(staged) });
      return reply(201, { data: { staged: stagedView(staged) } });
    },
  }),
  route({
    method: 'POST',
    url: '/add-ons/upload',
    summary: 'Upload and stage a package',
    description:
      "multipart/form-data with one file part: a `.tgz` add-on package (at most 20 MiB; 413 beyond). Checked like a download (400 ADDON_PACKAGE_INVALID with params.reason and params.path) and staged marked `verified: false`, which its plan shows. The same key and version again replaces a staged package, but not the installed version's: other bytes under it are 409 ADDON_VERSION_INSTALLED (the same bytes are staged again).",
    permission: ADDONS_MANAGE,
    tags,
    multipart: { fileSize: PACKAGE_MAX_BYTES, files: 1, fields: 5, parts: 10 },
    schema: { body: noBody, response: { 201: stagedData, 400: errorEnvelopeSchema, 409: errorEnvelopeSchema, 413: errorEnvelopeSchema } },
    handler: async ({ kernel, request, principal, audit }) => {
      const part = await multipartFile(request, { fileSize: PACKAGE_MAX_BYTES, files: 1 });
      if (!part) throw new AppError('VALIDATION_FAILED', { issues: [{ path: 'body.file', code: 'required', message: 'No file part in the form.' }] });
      const dir = await mkdtemp(join(tmpdir(), 'svc-addon-upload-'));
      try {
        const file = join(dir, 'package.tgz');
        try {
          await pipeline(part.file, createWriteStream(file));
        } catch (err) {
          if (part.file.errored) throw multipartBodyError(err);
          throw err;
        }
        if (part.file.truncated)
          throw new AppError('PAYLOAD_TOO_LARGE', { message: `A package is at most ${PACKAGE_MAX_BYTES} bytes.`, params: { limit: PACKAGE_MAX_BYTES } });
        const staged = await service(kernel).packages.stage(file, { source: 'upload', verified: false, by: principal?.userId ?? null });
        audit({ action: 'add-ons.upload', target: { type: 'addon', id: staged.key }, diff: stagedView(staged) });
        return reply(201, { data: { staged: stagedView(staged) } });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  }),
  route({
    method: 'DELETE',
    url: '/add-ons/staged/:key/:version',
    summary: 'Forget a staged package',
    description: 'The package goes from the instance; an installed add-on of that version keeps running (its files stay until it is upgraded or removed).',
    permission: ADDONS_MANAGE,
    tags,
    schema: { params: stagedParams, response: { 200: stagedData, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema } },
    handler: async ({ kernel, params, audit }) => {
      const s = service(kernel);
      const staged = await s.packages.require(params.key, params.version);
      const installed = await s.installed.get(params.key);
      if (installed?.version === params.version)
        throw new AppError('CONFLICT', { message: 'That version is installed; remove or upgrade the add-on first.', params: { reason: 'installed' } });
      await s.packages.remove(params.key, params.version);
      audit({ action: 'add-ons.staged.delete', target: { type: 'addon', id: params.key }, diff: stagedView(staged) });
      return { data: { staged: stagedView(staged) } };
    },
  }),
  route({
    method: 'GET',
    url: '/add-ons',
    summary: 'Installed add-ons and staged packages',
    permission: ADDONS_READ,
    tags,
    schema: { response: { 200: addonListData } },
    handler: async ({ kernel }) => {
      const s = service(kernel);
      const installed = await s.installed.list();
      return { data: { addons: await s.views(installed), staged: (await s.packages.list()).map(stagedView) } };
    },
  }),
  route({
    method: 'GET',
    url: '/add-ons/:key/plan',
    summary: 'What an install, upgrade or removal will do',
    description:
      'With `version` (a staged one): the install plan (and `connectionId`, where its tables go) or, when the add-on is installed, the upgrade plan. Without `version`: the removal plan. The plan lists every table and column with its action, the endpoints, capabilities, outbound hosts, surfaces, peak, connect and settings, warnings and whether it is destructive; its `hash` is what POST /add-ons and upgrade must confirm. 409 ADDON_ENGINE_MISMATCH, ADDON_DOWNGRADE, ADDON_CONFLICT.',
    permission: ADDONS_READ,
    tags,
    schema: { params: keyParams, query: planQuery, response: { 200: planData, ...errors } },
    handler: async ({ kernel, params, query }) => ({ data: { plan: await service(kernel).lifecycle.plan(params.key, query.version, query.connectionId) } }),
  }),
  route({
    method: 'POST',
    url: '/add-ons',
    summary: 'Install a staged add-on',
    description:
      'Carries out the plan the operator saw: 409 ADDON_PLAN_CHANGED (params.hash: the new one) when it changed. Creates the tables on the connection, the endpoints and the app key, in one meta-store transaction plus compensating DDL: a failure leaves nothing half-made. Settings are checked against the manifest (400 ADDON_SETTINGS_INVALID).',
    permission: ADDONS_MANAGE,
    tags,
    schema: { body: installBody, response: { 201: addonData, ...errors, 502: errorEnvelopeSchema } },
    handler: async ({ kernel, body, principal, audit }) => {
      const s = service(kernel);
      const installed = await s.lifecycle.install(principal?.userId ?? null, body);
      const view = await s.view(installed);
      audit({
        action: 'add-ons.install',
        target: { type: 'addon', id: view.key },
        diff: { version: view.version, connectionId: view.connectionId, planHash: body.planHash },
      });
      return reply(201, { data: { addon: view } });
    },
  }),
  route({
    method: 'POST',
    url: '/add-ons/:key/upgrade',
    summary: 'Upgrade an installed add-on to a staged version',
    description:
      "Additive: new tables, columns, indexes and endpoints. A plan that drops or retypes a column is destructive: 409 ADDON_DESTRUCTIVE unless `allowDestructive: true`. 409 ADDON_PLAN_CHANGED, ADDON_DOWNGRADE, ADDON_ENGINE_MISMATCH. Every stored setting (the app's and its instances') is re-checked against the new schema as the plan's `settingChanges` lists: dropped, converted, sealed; a value the new rules refuse must be given anew (`settings`, `instanceSettings`), else 400 ADDON_SETTINGS_INVALID with an issue per value. A failure leaves the previous version working.",
    permission: ADDONS_MANAGE,
    tags,
    schema: { params: keyParams, body: upgradeBody, response: { 200: addonData, ...errors, 502: errorEnvelopeSchema } },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const s = service(kernel);
      const before = await s.require(params.key);
      const after = await s.lifecycle.upgrade(principal?.userId ?? null, params.key, body);
      audit({
        action: 'add-ons.upgrade',
        target: { type: 'addon', id: params.key },
        diff: { from: before.version, to: after.version, planHash: body.planHash },
      });
      return { data: { addon: await s.view(after) } };
    },
  }),
  route({
    method: 'PATCH',
    url: '/add-ons/:key',
    summary: 'Enable, disable or change the settings of an add-on',
    description:
      'Settings are checked against the manifest (400 ADDON_SETTINGS_INVALID); secret settings are write-only: never returned, kept when left out, cleared with null.',
    permission: ADDONS_MANAGE,
    tags,
    schema: { params: keyParams, body: patchBody, response: { 200: addonData, ...errors } },
    handler: async ({ kernel, params, body, audit }) => {
      const s = service(kernel);
      const { before, after } = await s.lifecycle.patch(params.key, body);
      const [b, a] = [await s.view(before), await s.view(after)];
      audit({
        action: 'add-ons.update',
        target: { type: 'addon', id: params.key },
        diff: {
          before: { enabled: b.enabled, settings: b.settings, secretsSet: b.secretsSet },
          after: { enabled: a.enabled, settings: a.settings, secretsSet: a.secretsSet },
        },
      });
      return { data: { addon: a } };
    },
  }),
  route({
    method: 'POST',
    url: '/add-ons/:key/connect',
    summary: 'Connect an add-on with the secret fields it declares',
    description:
      "For an add-on whose connect is `secret`: a value for every declared field (400 VALIDATION_FAILED names a missing or unknown one). They are stored encrypted, replace what was stored, are never returned nor logged, and reach only this add-on's code as `ctx.connection`. 409 ADDON_NOT_CONNECTABLE when the add-on declares no secret connect.",
    permission: ADDONS_MANAGE,
    tags,
    schema: { params: keyParams, body: connectBody, response: { 200: addonData, ...errors } },
    handler: async ({ kernel, params, body, audit }) => {
      const s = service(kernel);
      const addon = await s.require(params.key);
      await s.connects.connectSecret(addon, body.fields);
      audit({ action: 'add-ons.connect', target: { type: 'addon', id: params.key }, diff: { kind: 'secret', fieldNames: Object.keys(body.fields).sort() } });
      return { data: { addon: await s.view(addon) } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/add-ons/:key/connect',
    summary: "Forget an add-on's connection",
    description: 'The stored fields or tokens are deleted (the provider is not told: revoke the grant there too). The add-on then sees `ctx.connection` null.',
    permission: ADDONS_MANAGE,
    tags,
    schema: { params: keyParams, response: { 200: addonData, 404: errorEnvelopeSchema } },
    handler: async ({ kernel, params, audit }) => {
      const s = service(kernel);
      const addon = await s.require(params.key);
      const forgotten = await s.connects.forget(params.key);
      audit({ action: 'add-ons.disconnect', target: { type: 'addon', id: params.key }, diff: { forgotten } });
      return { data: { addon: await s.view(addon) } };
    },
  }),
  route({
    method: 'POST',
    url: '/add-ons/:key/connect/oauth/start',
    summary: 'Start connecting an add-on with OAuth 2',
    description:
      "For an add-on whose connect is `oauth2`: the provider's authorize URL (the manifest's `authorizeUrl` with client_id from the add-on's client id setting, redirect_uri, scope, state and a PKCE S256 challenge; the verifier stays on the instance). The state is bound to this session, opens `complete` once and lasts 10 minutes. The provider sends the browser back to `redirectUri` (the dashboard's `/add-ons/{key}/connect/callback`, under SVC_BASE_URL when set), which completes. Needs a signed-in session (403 SESSION_REQUIRED for an API key). 409 ADDON_NOT_CONNECTABLE when the add-on declares no OAuth connect or its client id setting is empty.",
    permission: ADDONS_MANAGE,
    tags,
    schema: { params: keyParams, body: noBody, response: { 200: oauthStartData, ...errors, 403: errorEnvelopeSchema } },
    handler: async ({ kernel, params, principal, request, audit }) => {
      const { sessionId } = requireUser(principal);
      if (!sessionId) throw new AppError('SESSION_REQUIRED');
      const s = service(kernel);
      const addon = await s.require(params.key);
      const redirectUri = `${linkBase(request, kernel.config)}/add-ons/${params.key}/connect/callback`;
      const started = await s.connects.startOAuth(addon, sessionId, redirectUri);
      audit({ action: 'add-ons.connect.start', target: { type: 'addon', id: params.key }, diff: { kind: 'oauth2', redirectUri } });
      return { data: { ...started, redirectUri } };
    },
  }),
  route({
    method: 'POST',
    url: '/add-ons/:key/connect/oauth/complete',
    summary: 'Finish connecting an add-on with OAuth 2',
    description:
      "The `code` and `state` the provider sent back. The state must be one this session started for this add-on (400 ADDON_OAUTH_STATE_INVALID), not used before (409 ADDON_OAUTH_STATE_USED) and not older than 10 minutes (409 ADDON_OAUTH_STATE_EXPIRED); it is spent by this call whatever its outcome. The code is exchanged at the manifest's `tokenUrl` with the PKCE verifier, under the instance's outbound rules (409 NETWORK_FEATURES_DISABLED, 403 ADDON_OUTBOUND_REFUSED); a refusal or an answer without a token is 502 ADDON_OAUTH_PROVIDER_ERROR (params.error: the provider's error code). The tokens are stored encrypted, never returned, and refreshed when they expire.",
    permission: ADDONS_MANAGE,
    tags,
    schema: { params: keyParams, body: oauthCompleteBody, response: { 200: addonData, ...errors, 403: errorEnvelopeSchema, 502: errorEnvelopeSchema } },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const { sessionId } = requireUser(principal);
      if (!sessionId) throw new AppError('SESSION_REQUIRED');
      const s = service(kernel);
      const addon = await s.require(params.key);
      const status = await s.connects.completeOAuth(addon, sessionId, body.code, body.state);
      audit({ action: 'add-ons.connect', target: { type: 'addon', id: params.key }, diff: { kind: 'oauth2', expiresAt: status.expiresAt } });
      return { data: { addon: await s.view(addon) } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/add-ons/:key',
    summary: 'Remove an add-on',
    description: 'Its endpoints and app key go at once. Its tables and their rows are kept unless `dropData=true` (the removal plan lists them).',
    permission: ADDONS_MANAGE,
    tags,
    schema: { params: keyParams, query: removeQuery, response: { 200: removedData, 404: errorEnvelopeSchema, 502: errorEnvelopeSchema } },
    handler: async ({ kernel, params, query, audit }) => {
      const { removed, droppedTables } = await service(kernel).lifecycle.remove(params.key, query.dropData === 'true');
      audit({ action: 'add-ons.remove', target: { type: 'addon', id: params.key }, diff: { version: removed.version, droppedTables } });
      return { data: { removed: true as const, key: params.key, droppedTables } };
    },
  }),
];
