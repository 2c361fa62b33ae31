import { z } from 'zod';
import { localeField } from '../../../kernel/api.js';

export { localeField };
export const templateKeyField = z.string().min(1).max(100);

export const templateSchema = z
  .strictObject({
    key: z.string(),
    locale: z.string(),
    subject: z.string(),
    text: z.string(),
    html: z.string().nullable(),
    source: z.enum(['edited', 'default', 'fallback']),
    resolvedLocale: z.string(),
    edited: z.boolean(),
    variables: z.array(z.string()),
    updatedAt: z.number().nullable(),
  })
  .meta({ id: 'EmailTemplate' });

export const templateSummarySchema = z
  .strictObject({ key: z.string(), locale: z.string(), edited: z.boolean(), hasDefault: z.boolean(), subject: z.string(), updatedAt: z.number().nullable() })
  .meta({ id: 'EmailTemplateSummary' });

export const putTemplateBody = z.strictObject({
  subject: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .refine((s) => !/[\r\n]/.test(s), { message: 'A subject is one line.' }),
  text: z.string().min(1).max(100_000),
  html: z.string().max(200_000).nullable().optional(),
});

export const testSendBody = z.strictObject({
  to: z.email().max(320),
  locale: localeField.optional(),
  vars: z.record(z.string().min(1).max(64), z.union([z.string().max(2000), z.number()])).optional(),
});
