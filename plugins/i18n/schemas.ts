import { z } from 'zod';
import { cursorField, dataOf, localeField } from '../../kernel/api.js';
import { VALUE_MAX } from './service.js';

export const namespaceField = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'A namespace: lower-case letters, digits and hyphens.');
/** A message id: the dashboard's full id (`settings.title`); in custom, any such name (IN5). */
export const keyField = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.-]+$/, 'A key: letters, digits, dots, hyphens and underscores.');
export const valueField = z.string().min(1).max(VALUE_MAX);
const dirField = z.enum(['ltr', 'rtl']);

export const manifestData = dataOf(
  z.strictObject({
    source: z.literal('en'),
    defaultLocale: z.string().meta({ description: 'The instance default (/settings/defaults) as shown: the first enabled locale along its fallback chain.' }),
    locales: z.array(z.strictObject({ locale: z.string(), name: z.string(), dir: dirField, fallback: z.string().nullable() })),
    namespaces: z.array(z.string()),
    hashes: z
      .record(z.string(), z.record(z.string(), z.string()))
      .meta({ description: 'locale → namespace → the bundle’s hash, which is its ETag (in quotes): a new hash is a new bundle.' }),
  }),
).meta({ id: 'I18nManifest' });

export const bundleData = dataOf(
  z.strictObject({
    locale: z.string(),
    namespace: z.string(),
    messages: z.record(z.string(), z.string()).meta({ description: 'key → ICU message, merged along the fallback chain (every source key present).' }),
  }),
).meta({ id: 'I18nBundle' });

export const localeView = z
  .strictObject({
    locale: z.string(),
    name: z.string(),
    dir: dirField,
    fallback: z.string().nullable(),
    enabled: z.boolean(),
    shipped: z.boolean(),
    completeness: z.record(z.string(), z.number().min(0).max(1)).meta({ description: 'namespace → share of source keys with the locale’s own text.' }),
  })
  .meta({ id: 'I18nLocale' });

export const localesData = dataOf(z.strictObject({ locales: z.array(localeView) }));

export const problemKind = z.enum(['syntax', 'placeholders', 'plural-other', 'tags']);

export const formatErrorsQuery = z.object({ locale: localeField.optional(), namespace: namespaceField.optional() });
export const formatErrorsData = dataOf(
  z.strictObject({
    errors: z.array(
      z.strictObject({
        locale: z.string(),
        namespace: z.string(),
        key: z.string(),
        kind: problemKind,
        message: z.string(),
        offset: z.number().int().optional(),
        expected: z.array(z.string()).optional(),
        found: z.array(z.string()).optional(),
      }),
    ),
    checked: z.number().int().meta({ description: 'How many texts were checked.' }),
  }),
);

export const keysQuery = z.object({
  locale: localeField,
  namespace: namespaceField.optional(),
  q: z.string().min(1).max(200).optional(),
  missing: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: cursorField(z.tuple([z.string(), z.string()])),
});
export const keysData = dataOf(
  z.strictObject({
    keys: z.array(
      z.strictObject({
        namespace: z.string(),
        key: z.string(),
        source: z.string(),
        value: z.string().nullable().meta({ description: 'The locale’s own text (stored, else shipped); null when it has none.' }),
        state: z.enum(['translated', 'missing', 'fallback', 'override']),
        updatedAt: z.number().int().nullable(),
      }),
    ),
    nextCursor: z.string().nullable(),
  }),
);

export const putKeyBody = z.strictObject({ namespace: namespaceField, key: keyField, locale: localeField, value: valueField });
export const keyData = dataOf(z.strictObject({ key: z.string() }));
export const deleteKeyQuery = z.object({ namespace: namespaceField, key: keyField, locale: localeField.optional() });
export const bulkBody = z.strictObject({
  items: z
    .array(z.strictObject({ namespace: namespaceField, key: keyField, locale: localeField, value: valueField.nullable() }))
    .min(1)
    .max(1000),
});
export const bulkData = dataOf(z.strictObject({ updated: z.number().int(), deleted: z.number().int() }));

export const createLocaleBody = z.strictObject({
  locale: localeField,
  name: z.string().trim().min(1).max(60),
  fallback: localeField.optional(),
  dir: dirField.optional(),
});
export const patchLocaleBody = z.strictObject({
  name: z.string().trim().min(1).max(60).optional(),
  fallback: localeField.optional(),
  dir: dirField.optional(),
  enabled: z.boolean().optional(),
});
export const localeData = dataOf(z.strictObject({ locale: z.string() }));
export const localeParams = z.object({ locale: localeField });

export const exportQuery = z.object({ format: z.enum(['json', 'po', 'xliff']).default('json'), namespace: namespaceField.optional() });
export const importData = dataOf(
  z.strictObject({
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    rejected: z.array(z.strictObject({ namespace: z.string(), key: z.string(), reason: z.string() })),
  }),
);
