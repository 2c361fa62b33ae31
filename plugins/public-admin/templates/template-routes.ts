import { z } from 'zod';
import { dataOf, type Kernel, route } from '../../../kernel/api.js';
import { EMAIL_TEMPLATES_READ, EMAIL_TEMPLATES_WRITE } from '../access.js';
import { localeField, putTemplateBody, templateKeyField, templateSchema, templateSummarySchema, testSendBody } from './schemas.js';
import { publicAdminServiceRef } from '../service.js';

const templates = (kernel: Kernel) => kernel.plugin(publicAdminServiceRef).templates;
const tags = ['E-mail templates'];
const keyLocale = z.object({ key: templateKeyField, locale: localeField });

export const templateRoutes = [
  route({
    method: 'GET',
    url: '/email-templates',
    tags,
    summary: 'Every e-mail template by key and locale (its defaults’ and every enabled locale), and whether it was edited',
    permission: EMAIL_TEMPLATES_READ,
    schema: { response: { 200: dataOf(z.strictObject({ templates: z.array(templateSummarySchema), nextCursor: z.null() })) } },
    handler: async ({ kernel }) => ({ data: { templates: await templates(kernel).list(), nextCursor: null } }),
  }),
  route({
    method: 'GET',
    url: '/email-templates/:key/:locale',
    tags,
    summary: 'One template in one locale as it would be sent: the edit, else the default, else the fallback locale’s (en last)',
    permission: EMAIL_TEMPLATES_READ,
    schema: { params: keyLocale, response: { 200: dataOf(z.strictObject({ template: templateSchema })) } },
    handler: async ({ kernel, params }) => ({ data: { template: await templates(kernel).get(params.key, params.locale) } }),
  }),
  route({
    method: 'PUT',
    url: '/email-templates/:key/:locale',
    tags,
    summary: 'Store an edited template for one locale; every sender uses it from the next mail on',
    description:
      '`{{name}}` placeholders are filled when sending (HTML-escaped in html). A locale without a default may be added (fallback otherwise: de_AT → de → en).',
    permission: EMAIL_TEMPLATES_WRITE,
    bodyLimit: 512 * 1024,
    schema: { params: keyLocale, body: putTemplateBody, response: { 200: dataOf(z.strictObject({ template: templateSchema })) } },
    handler: async ({ kernel, params, body, audit }) => {
      const { before, after } = await templates(kernel).put(params.key, params.locale, body);
      audit({ action: 'email-templates.update', target: { type: 'emailTemplate', id: `${params.key}/${params.locale}` }, diff: { before, after } });
      return { data: { template: after } };
    },
  }),
  route({
    method: 'POST',
    url: '/email-templates/:key/test-send',
    tags,
    summary: 'Send the template to an address through the configured SMTP server',
    description:
      'Rendered like a real send (edits first, locale fallback; `locale` defaults to en). Variables not given show as [name] (sample values for ' +
      'the booking confirmation). Without SMTP settings: 409 EMAIL_NOT_CONFIGURED; when the server refuses: 502 EMAIL_SEND_FAILED.',
    permission: EMAIL_TEMPLATES_WRITE,
    schema: {
      params: z.object({ key: templateKeyField }),
      body: testSendBody,
      response: {
        200: dataOf(z.strictObject({ sent: z.literal(true), locale: z.string().describe('the locale whose content was sent'), messageId: z.string() })),
      },
    },
    handler: async ({ kernel, params, body, audit }) => {
      const res = await templates(kernel).testSend(params.key, body.locale ?? 'en', body.to, body.vars ?? {});
      audit({
        action: 'email-templates.test-send',
        target: { type: 'emailTemplate', id: `${params.key}/${res.locale}` },
        diff: { to: body.to, locale: body.locale ?? 'en' },
      });
      return { data: { sent: true as const, locale: res.locale, messageId: res.messageId } };
    },
  }),
];
