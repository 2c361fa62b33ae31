import {
  AppError,
  errorEnvelopeSchema,
  HANDLED,
  type Kernel,
  matchesIfNoneMatch,
  multipartBuffer,
  noBody,
  rawResponse,
  reply,
  route,
} from '../../kernel/api.js';
import { LOGO_MAX_BYTES } from './logo.js';
import { brandingData, brandingEnvelope, brandingInput } from './schemas.js';
import { brandingServiceRef } from './service.js';

export const BRANDING_WRITE = 'branding.write';
const tags = ['Branding'];
const service = (kernel: Kernel) => kernel.plugin(brandingServiceRef);

/** An SVG opened on its own can run nothing and load nothing (BR2). */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** The upload, whole, within the limit (413 beyond it). */
async function uploadedBytes(request: Parameters<typeof multipartBuffer>[0]): Promise<Buffer> {
  return (await multipartBuffer(request, { fileSize: LOGO_MAX_BYTES, what: 'A logo' })).buffer;
}

export const brandingRoutes = [
  route({
    method: 'GET',
    url: '/branding',
    summary: 'The product name, primary colour, logo and sign-in message',
    description: 'Public (the sign-in page shows it). Read from memory; a change on any replica is seen at once on the others (decisions BR1).',
    public: true,
    tags,
    schema: { response: { 200: brandingData } },
    handler: async ({ kernel }) => ({ data: await service(kernel).view() }),
  }),
  route({
    method: 'GET',
    url: '/branding/logo',
    summary: 'The logo image',
    description:
      'Public. Content-Type from the image’s bytes, a strong ETag (304 on If-None-Match), `Cache-Control: public, no-cache`, `X-Content-Type-Options: nosniff`; ' +
      "an SVG also with `Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; sandbox`. 404 NOT_FOUND without a logo.",
    public: true,
    tags,
    schema: {
      response: {
        200: rawResponse('image/png', 'The logo: image/png, image/jpeg, image/webp or image/svg+xml, as Content-Type says.'),
        304: rawResponse('image/png', 'Not modified: the ETag in If-None-Match is current (no body).'),
        404: errorEnvelopeSchema,
      },
    },
    handler: async ({ kernel, request, reply: res }): Promise<typeof HANDLED> => {
      const logo = await service(kernel).logo();
      if (!logo) throw new AppError('NOT_FOUND', { message: 'There is no logo.' });
      res.header('etag', logo.etag).header('cache-control', 'public, no-cache').header('x-content-type-options', 'nosniff');
      if (logo.type === 'image/svg+xml') res.header('content-security-policy', SVG_CSP);
      if (matchesIfNoneMatch(request.headers['if-none-match'], logo.etag)) {
        await res.code(304).send();
        return HANDLED;
      }
      const stream = await logo.open();
      if (!stream) throw new AppError('NOT_FOUND', { message: 'There is no logo.' });
      await res.code(200).header('content-type', logo.type).header('content-length', String(logo.size)).send(stream);
      return HANDLED;
    },
  }),
  route({
    method: 'POST',
    url: '/branding/logo',
    summary: 'Upload the logo',
    description:
      `multipart/form-data with one file part: PNG, JPEG, WebP or SVG, known by its bytes whatever its name says, at most ${LOGO_MAX_BYTES / 1024} KiB (413 beyond) and 2,048 px a side. ` +
      '400 BRANDING_LOGO_INVALID with params.reason `format`, `dimensions` or `svg-unsafe` (script, event attributes, foreignObject, entities, references outside the file). Replaces the logo there was.',
    permission: BRANDING_WRITE,
    tags,
    multipart: { fileSize: LOGO_MAX_BYTES, files: 1, fields: 2, parts: 3 },
    schema: { body: noBody, response: { 201: brandingEnvelope, 400: errorEnvelopeSchema, 413: errorEnvelopeSchema } },
    handler: async ({ kernel, request, audit }) => {
      const branding = await service(kernel).setLogo(await uploadedBytes(request));
      audit({ action: 'branding.logo.set', target: { type: 'branding', id: 'logo' }, diff: { logo: branding.logo } });
      return reply(201, { data: { branding } });
    },
  }),
  route({
    method: 'DELETE',
    url: '/branding/logo',
    summary: 'Remove the logo',
    description: '404 NOT_FOUND when there is none.',
    permission: BRANDING_WRITE,
    tags,
    schema: { response: { 200: brandingEnvelope, 404: errorEnvelopeSchema } },
    handler: async ({ kernel, audit }) => {
      const branding = await service(kernel).removeLogo();
      audit({ action: 'branding.logo.remove', target: { type: 'branding', id: 'logo' }, diff: {} });
      return { data: { branding } };
    },
  }),
  route({
    method: 'PUT',
    url: '/settings/branding',
    summary: 'Change the product name, primary colour or sign-in message',
    description:
      'Fields left out stay as they are; null clears. 400 VALIDATION_FAILED with `color-invalid` (not #rrggbb) or `color-contrast` (white text on it under 4.5:1, WCAG AA) at body.colors.primary. Needs branding.write (admin).',
    permission: BRANDING_WRITE,
    tags,
    schema: { body: brandingInput, response: { 200: brandingEnvelope, 400: errorEnvelopeSchema } },
    handler: async ({ kernel, body, audit }) => {
      const branding = await service(kernel).update(body);
      audit({ action: 'branding.update', target: { type: 'branding', id: 'settings' }, diff: body });
      return { data: { branding } };
    },
  }),
];
