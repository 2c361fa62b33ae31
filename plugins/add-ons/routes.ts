import { createWriteStream, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { noBody, reply, route } from '../../kernel/contract/route.js';
import { errorEnvelopeSchema } from '../../kernel/contract/shapes.js';
import { AppError } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel-services.js';
import { multipartBodyError, multipartFile } from '../../kernel/http/multipart.js';
import { PACKAGE_MAX_BYTES } from './catalog.js';
import type { StagedPackage } from './packages.js';
import {
  addonData,
  addonListData,
  catalogData,
  downloadBody,
  installBody,
  keyParams,
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
import type { AddonService } from './service.js';

export const ADDONS_READ = 'add-ons.read';
export const ADDONS_MANAGE = 'add-ons.manage';
const tags = ['Add-ons'];
const service = (kernel: Kernel) => kernel.plugin<AddonService>('add-ons');
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

async function catalogView(kernel: Kernel, refresh?: Array<{ url: string; ok: boolean; error?: string }>) {
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
      'multipart/form-data with one file part: a `.tgz` add-on package (at most 20 MiB; 413 beyond). Checked like a download (400 ADDON_PACKAGE_INVALID with params.reason and params.path) and staged marked `verified: false`, which its plan shows.',
    permission: ADDONS_MANAGE,
    tags,
    multipart: { fileSize: PACKAGE_MAX_BYTES, files: 1, fields: 5, parts: 10 },
    schema: { body: noBody, response: { 201: stagedData, 400: errorEnvelopeSchema, 413: errorEnvelopeSchema } },
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
      return { data: { addons: await Promise.all(installed.map((a) => s.view(a))), staged: (await s.packages.list()).map(stagedView) } };
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
    handler: async ({ kernel, params, query }) => ({ data: { plan: await service(kernel).plan(params.key, query.version, query.connectionId) } }),
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
      const installed = await s.install(principal?.userId ?? null, body);
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
      'Additive: new tables, columns, indexes and endpoints. A plan that drops or retypes a column is destructive: 409 ADDON_DESTRUCTIVE unless `allowDestructive: true`. 409 ADDON_PLAN_CHANGED, ADDON_DOWNGRADE, ADDON_ENGINE_MISMATCH. A failure leaves the previous version working.',
    permission: ADDONS_MANAGE,
    tags,
    schema: { params: keyParams, body: upgradeBody, response: { 200: addonData, ...errors, 502: errorEnvelopeSchema } },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const s = service(kernel);
      const before = await s.require(params.key);
      const after = await s.upgrade(principal?.userId ?? null, params.key, body);
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
      const { before, after } = await s.patch(params.key, body);
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
    method: 'DELETE',
    url: '/add-ons/:key',
    summary: 'Remove an add-on',
    description: 'Its endpoints and app key go at once. Its tables and their rows are kept unless `dropData=true` (the removal plan lists them).',
    permission: ADDONS_MANAGE,
    tags,
    schema: { params: keyParams, query: removeQuery, response: { 200: removedData, 404: errorEnvelopeSchema, 502: errorEnvelopeSchema } },
    handler: async ({ kernel, params, query, audit }) => {
      const { removed, droppedTables } = await service(kernel).remove(params.key, query.dropData === 'true');
      audit({ action: 'add-ons.remove', target: { type: 'addon', id: params.key }, diff: { version: removed.version, droppedTables } });
      return { data: { removed: true as const, key: params.key, droppedTables } };
    },
  }),
];
