import { AppError, authenticate, errorEnvelopeSchema, HANDLED, type Kernel, matchesIfNoneMatch, rawResponse, route, SIGNED_IN } from '../../kernel/api.js';
import { CUSTOM_NAMESPACE } from './catalogue.js';
import { bundleData, localeParams, localesData, manifestData, namespaceField } from './schemas.js';
import { type Bundle, compressedOnce, i18nServiceRef, type Manifest } from './service.js';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const I18N_READ = 'i18n.read';
export const I18N_WRITE = 'i18n.write';
export const tags = ['i18n'];
export const service = (kernel: Kernel) => kernel.plugin(i18nServiceRef);

/** The compressed form the client takes, br before gzip (q=0 refuses one); null for the identity. */
function acceptedEncoding(header: string | string[] | undefined): 'br' | 'gzip' | null {
  if (typeof header !== 'string' || header === '') return null;
  const taken = new Set<string>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name && (q === undefined || Number(q) > 0)) taken.add(name.trim());
  }
  return taken.has('br') ? 'br' : taken.has('gzip') ? 'gzip' : null;
}

/**
 * A kept JSON answer with its strong ETag: 304 when the client has it, else its bytes, compressed
 * once for all requests rather than on each (IN6). One ETag for every encoding: RFC 9110 wants a
 * strong ETag per representation, but the body a client decodes is the same bytes, and the ETag
 * is the manifest's hash by contract; `Vary: Accept-Encoding` keeps caches apart.
 */
function sendKept(request: FastifyRequest, res: FastifyReply, kept: Bundle | Manifest): typeof HANDLED {
  res.header('etag', kept.etag).header('cache-control', 'public, no-cache').header('vary', 'accept-encoding');
  if (matchesIfNoneMatch(request.headers['if-none-match'], kept.etag)) {
    res.code(304).send();
    return HANDLED;
  }
  res.code(200).header('content-type', 'application/json; charset=utf-8');
  const encoding = kept.body.length >= 1024 ? acceptedEncoding(request.headers['accept-encoding']) : null;
  if (encoding === null) res.send(kept.body);
  else res.header('content-encoding', encoding).send(compressedOnce(kept, encoding));
  return HANDLED;
}

/** custom holds page titles: its bundle is for signed-in callers only. */
function signedIn(request: FastifyRequest, kernel: Kernel): void | Promise<void> {
  const found = authenticate(request, kernel.principals, kernel.config);
  const check = (auth: unknown) => {
    if (!auth) throw new AppError('AUTH_REQUIRED', { message: 'Sign in to read the custom strings.' });
  };
  return found instanceof Promise ? found.then(check) : check(found);
}

export const readRoutes = [
  route({
    method: 'GET',
    url: '/i18n/manifest',
    summary: 'The enabled locales, the namespaces and each bundle’s hash',
    description:
      'Public (the sign-in page is translated too). Strong ETag; 304 on If-None-Match. `hashes[locale][namespace]` is the ETag of `GET /i18n/bundle/{locale}/{namespace}` (decisions IN6).',
    public: true,
    tags,
    schema: { response: { 200: manifestData, 304: rawResponse('application/json', 'Not modified (no body).') } },
    handler: async ({ kernel, request, reply }): Promise<typeof HANDLED> => sendKept(request, reply, await service(kernel).manifest()),
  }),
  route({
    method: 'GET',
    url: '/i18n/bundle/:locale/:namespace',
    summary: 'One namespace’s messages in one locale, merged along its fallback chain',
    description:
      'Public except `custom` (signed in: it holds page titles; 401 AUTH_REQUIRED signed out). Every source key is present: the stored text, else the shipped file, else the fallback chain’s, else English. ' +
      'Strong ETag (the manifest’s hash), `Cache-Control: public, no-cache`, 304 on If-None-Match. 404 I18N_LOCALE_NOT_FOUND (unknown or disabled), 404 NOT_FOUND (namespace).',
    public: true,
    tags,
    schema: {
      params: localeParams.extend({ namespace: namespaceField }),
      response: {
        200: bundleData,
        304: rawResponse('application/json', 'Not modified (no body).'),
        401: errorEnvelopeSchema,
        404: errorEnvelopeSchema,
      },
    },
    handler: ({ kernel, params, request, reply }) => {
      const answer = (): typeof HANDLED | Promise<typeof HANDLED> => {
        const bundle = service(kernel).bundle(params.locale, params.namespace);
        return bundle instanceof Promise ? bundle.then((b) => sendKept(request, reply, b)) : sendKept(request, reply, bundle);
      };
      if (params.namespace !== CUSTOM_NAMESPACE) return answer();
      const gate = signedIn(request, kernel);
      return gate instanceof Promise ? gate.then(answer) : answer();
    },
  }),
  route({
    method: 'GET',
    url: '/i18n/locales',
    summary: 'Every locale, enabled or not, with its completeness by namespace',
    description: 'Any signed-in user (Preferences lists them).',
    permission: SIGNED_IN,
    tags,
    schema: { response: { 200: localesData } },
    handler: async ({ kernel }) => ({ data: { locales: await service(kernel).locales() } }),
  }),
];
