import { z } from 'zod';
import { AppError, encodeCursor, errorEnvelopeSchema, HANDLED, multipartBuffer, noBody, okSchema, rawResponse, reply, route } from '../../kernel/api.js';
import type { ExchangeFormat } from './exchange.js';

/** The file formats' libraries (gettext-parser, xliff) load on the first export or import, not at start (K32). */
const exchange = () => import('./exchange.js');
import { I18N_READ, I18N_WRITE, service, tags } from './routes.js';
import {
  bulkBody,
  bulkData,
  createLocaleBody,
  deleteKeyQuery,
  exportQuery,
  formatErrorsData,
  formatErrorsQuery,
  importData,
  keyData,
  keysData,
  keysQuery,
  localeData,
  localeParams,
  patchLocaleBody,
  putKeyBody,
} from './schemas.js';

export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;

const importQuery = z.object({
  format: z.enum(['json', 'po', 'xliff']).optional().meta({ description: 'Default: from the file name (.json, .po, .xlf/.xliff).' }),
  dryRun: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .default(false),
  overwrite: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .default(false),
});

function formatOf(name: string | undefined): ExchangeFormat | null {
  const ext = /\.([A-Za-z]+)$/.exec(name ?? '')?.[1]?.toLowerCase();
  return ext === 'json' ? 'json' : ext === 'po' ? 'po' : ext === 'xlf' || ext === 'xliff' ? 'xliff' : null;
}

export const writeRoutes = [
  route({
    method: 'GET',
    url: '/i18n/format-errors',
    summary: 'The ICU problems of every translated text, against its English source',
    description:
      'Every text a locale has of its own (stored or shipped) checked by the ICU check PUT uses: `syntax` (with the parser’s offset), `placeholders` (expected, found), `plural-other`, `tags`. 400 at query.locale or query.namespace when unknown.',
    permission: I18N_READ,
    tags,
    schema: { query: formatErrorsQuery, response: { 200: formatErrorsData, 400: errorEnvelopeSchema } },
    handler: async ({ kernel, query }) => ({ data: await service(kernel).formatErrors(query) }),
  }),
  route({
    method: 'GET',
    url: '/i18n/keys',
    summary: 'The keys of one locale with their source, text and state',
    description:
      '`state`: `translated` (the locale’s own text), `override` (a stored text over a shipped one), `fallback` (none, a fallback locale’s shows), `missing` (none, English shows). ' +
      '`missing=true`: only `missing` and `fallback`. `q`: the key, the source or the text contains it (any case). Sorted by namespace, then key.',
    permission: I18N_READ,
    tags,
    schema: { query: keysQuery, response: { 200: keysData, 400: errorEnvelopeSchema } },
    handler: async ({ kernel, query }) => {
      const { keys, next } = await service(kernel).keys({
        locale: query.locale,
        namespace: query.namespace,
        q: query.q,
        missing: query.missing,
        limit: query.limit,
        after: query.cursor,
      });
      return { data: { keys, nextCursor: next ? encodeCursor(next) : null } };
    },
  }),
  route({
    method: 'PUT',
    url: '/i18n/keys',
    summary: 'Store one locale’s text of a key',
    description:
      'Checked against the English source: 400 VALIDATION_FAILED at body.value with `icu-syntax`, `placeholders`, `plural-other` or `tags`; `params.problems` has each one’s `offset` or `expected` and `found`. ' +
      '404 NOT_FOUND for a key not in a shipped namespace; in `custom` a new key is created (written in another locale, its text is its English source too). 404 I18N_LOCALE_NOT_FOUND.',
    permission: I18N_WRITE,
    tags,
    bodyLimit: 64 * 1024,
    schema: { body: putKeyBody, response: { 200: keyData, 400: errorEnvelopeSchema, 404: errorEnvelopeSchema } },
    handler: async ({ kernel, body, principal, audit }) => {
      await service(kernel).put(body, principal?.userId ?? null);
      audit({ action: 'i18n.key.put', target: { type: 'i18nKey', id: `${body.locale}/${body.namespace}/${body.key}` }, diff: { value: body.value } });
      return { data: { key: body.key } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/i18n/keys',
    summary: 'Remove a stored text: the shipped or fallback text shows again',
    description:
      'Query `namespace`, `key`, `locale`. Without `locale` (or with `en`), only in `custom`: the key goes in every locale. 400 at query.locale when missing outside custom; 404 when nothing is stored.',
    permission: I18N_WRITE,
    tags,
    schema: { query: deleteKeyQuery, response: { 200: okSchema, 400: errorEnvelopeSchema, 404: errorEnvelopeSchema } },
    handler: async ({ kernel, query, audit }) => {
      await service(kernel).remove(query.namespace, query.key, query.locale);
      audit({ action: 'i18n.key.delete', target: { type: 'i18nKey', id: `${query.locale ?? '*'}/${query.namespace}/${query.key}` }, diff: {} });
      return { data: { ok: true as const } };
    },
  }),
  route({
    method: 'POST',
    url: '/i18n/keys/bulk',
    summary: 'Store or remove up to 1,000 texts, all or none',
    description:
      '`value: null` removes the stored text. Every item is checked first: 400 with issues at body.items.N.value (as PUT) or body.items.N (unknown key or locale); then all are written in one transaction.',
    permission: I18N_WRITE,
    tags,
    bodyLimit: 12 * 1024 * 1024,
    schema: { body: bulkBody, response: { 200: bulkData, 400: errorEnvelopeSchema } },
    handler: async ({ kernel, body, principal, audit }) => {
      const counts = await service(kernel).bulk(body.items, principal?.userId ?? null);
      audit({
        action: 'i18n.keys.bulk',
        target: { type: 'i18nKey', id: 'bulk' },
        diff: { ...counts, locales: [...new Set(body.items.map((i) => i.locale))], namespaces: [...new Set(body.items.map((i) => i.namespace))] },
      });
      return { data: counts };
    },
  }),
  route({
    method: 'GET',
    url: '/i18n/export/:locale',
    summary: 'One locale’s texts as a JSON, PO or XLIFF 1.2 file',
    description:
      'JSON: `{ "<namespace>": { "<key>": "<text>" } }`, the locale’s own texts. PO: `msgctxt` `<namespace>.<key>`, `msgid` the English source, `msgstr` the text (empty when missing). ' +
      'XLIFF 1.2: one `<file original="<namespace>">` a namespace, `<trans-unit id="<key>">` with source and target. `Content-Disposition: attachment`. 404 I18N_LOCALE_NOT_FOUND.',
    permission: I18N_READ,
    tags,
    schema: {
      params: localeParams,
      query: exportQuery,
      response: {
        200: rawResponse('application/json', 'The file: application/json, text/x-gettext-translation or application/xliff+xml, as Content-Type says.'),
        404: errorEnvelopeSchema,
      },
    },
    handler: async ({ kernel, params, query, reply: res }): Promise<typeof HANDLED> => {
      const entries = await service(kernel).exportEntries(params.locale, query.namespace);
      const { CONTENT_TYPES, EXTENSIONS, writeExport } = await exchange();
      const bytes = await writeExport(query.format, params.locale, entries);
      const name = `${params.locale}${query.namespace ? `-${query.namespace}` : ''}.${EXTENSIONS[query.format]}`;
      await res
        .code(200)
        .header('content-type', CONTENT_TYPES[query.format])
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('x-content-type-options', 'nosniff')
        .send(bytes);
      return HANDLED;
    },
  }),
  route({
    method: 'POST',
    url: '/i18n/import/:locale',
    summary: 'Import one locale’s texts from a JSON, PO or XLIFF 1.2 file',
    description:
      `multipart/form-data with one file part, at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB (413 beyond). Query: \`format\` (default: from the file name), \`dryRun\` (count, write nothing), \`overwrite\` (replace texts the locale has; default: only fill missing ones). ` +
      'Each text is checked alone: a bad one is listed in `rejected` with its reason (`icu-syntax`, `placeholders`, `plural-other`, `tags`, `unknown-key`, `not-text`, `too-long`, `duplicate`), the others are written. ' +
      '400 I18N_FILE_INVALID (params.reason `format`, `encoding`, `format-unknown`) when the file as a whole cannot be read.',
    permission: I18N_WRITE,
    tags,
    multipart: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 5, parts: 6 },
    schema: {
      params: localeParams,
      query: importQuery,
      body: noBody,
      response: { 200: importData, 400: errorEnvelopeSchema, 404: errorEnvelopeSchema, 413: errorEnvelopeSchema },
    },
    handler: async ({ kernel, params, query, request, principal, audit }) => {
      if (!(await service(kernel).hasLocale(params.locale)))
        throw new AppError('I18N_LOCALE_NOT_FOUND', { message: `There is no locale "${params.locale}".`, params: { locale: params.locale } });
      const part = await multipartBuffer(request, { fileSize: IMPORT_MAX_BYTES, what: 'A translation file' });
      const format = query.format ?? formatOf(part.filename);
      if (!format)
        throw new AppError('I18N_FILE_INVALID', {
          message: 'Say the file’s format (format=json, po or xliff), or name it .json, .po or .xlf.',
          params: { reason: 'format-unknown' },
        });
      const entries = await (await exchange()).readImport(format, part.buffer);
      const result = await service(kernel).importEntries(
        params.locale,
        entries,
        { dryRun: query.dryRun, overwrite: query.overwrite },
        principal?.userId ?? null,
      );
      audit({
        action: query.dryRun ? 'i18n.import.dry-run' : 'i18n.import',
        target: { type: 'i18nLocale', id: params.locale },
        diff: { format, created: result.created, updated: result.updated, unchanged: result.unchanged, rejected: result.rejected.length },
      });
      return { data: result };
    },
  }),
  route({
    method: 'POST',
    url: '/i18n/locales',
    summary: 'Add a locale',
    description:
      'Fallback default: the language part when it is a locale (de_AT → de), else en. Direction default: rtl for ar, he, fa and ur. ' +
      '409 I18N_LOCALE_EXISTS; 400 at body.fallback `fallback-unknown` or `fallback-cycle`.',
    permission: I18N_WRITE,
    tags,
    schema: { body: createLocaleBody, response: { 201: localeData, 400: errorEnvelopeSchema, 409: errorEnvelopeSchema } },
    handler: async ({ kernel, body, audit }) => {
      const info = await service(kernel).createLocale(body);
      audit({ action: 'i18n.locale.create', target: { type: 'i18nLocale', id: info.locale }, diff: { after: info } });
      return reply(201, { data: { locale: info.locale } });
    },
  }),
  route({
    method: 'PATCH',
    url: '/i18n/locales/:locale',
    summary: 'Rename a locale, change its fallback or direction, enable or disable it',
    description:
      '409 CONFLICT with params.reason `source-locale` (en cannot be disabled or fall back) or `instance-default` (the /settings/defaults locale cannot be disabled); 400 at body.fallback `fallback-unknown`, `fallback-cycle`; 404 I18N_LOCALE_NOT_FOUND.',
    permission: I18N_WRITE,
    tags,
    schema: {
      params: localeParams,
      body: patchLocaleBody,
      response: { 200: localeData, 400: errorEnvelopeSchema, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema },
    },
    handler: async ({ kernel, params, body, audit }) => {
      const { before, after } = await service(kernel).patchLocale(params.locale, body);
      audit({ action: 'i18n.locale.update', target: { type: 'i18nLocale', id: params.locale }, diff: { before, after } });
      return { data: { locale: params.locale } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/i18n/locales/:locale',
    summary: 'Delete a locale added here, with its stored texts',
    description:
      '409 CONFLICT with params.reason `shipped-locale` (disable it instead), `source-locale`, `instance-default`. Locales that fell back to it fall back to en. 404 I18N_LOCALE_NOT_FOUND.',
    permission: I18N_WRITE,
    tags,
    schema: { params: localeParams, response: { 200: okSchema, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema } },
    handler: async ({ kernel, params, audit }) => {
      const info = await service(kernel).deleteLocale(params.locale);
      audit({ action: 'i18n.locale.delete', target: { type: 'i18nLocale', id: params.locale }, diff: { before: info } });
      return { data: { ok: true as const } };
    },
  }),
];
