import { z } from 'zod';
import { addonKeyField, semverField, SETTING_FORMATS } from '../../addons-sdk/src/manifest/index.js';
import { dataOf } from '../../kernel/api.js';
import { instanceIdField } from './lifecycle/instances.js';

export const keyParams = z.strictObject({ key: addonKeyField });
export const stagedParams = z.strictObject({ key: addonKeyField, version: semverField });

const catalogVersion = z.strictObject({ version: z.string(), engine: z.string(), sha256: z.string(), size: z.number().int(), compatible: z.boolean() });
export const catalogEntrySchema = z
  .strictObject({
    key: z.string(),
    name: z.string(),
    description: z.string(),
    source: z.string().describe('`built-in` for the catalog shipped with the instance, else the index URL.'),
    versions: z.array(catalogVersion),
    installed: z.strictObject({ version: z.string(), enabled: z.boolean() }).nullable(),
    staged: z.array(z.strictObject({ version: z.string(), verified: z.boolean(), sha256: z.string() })),
  })
  .meta({ id: 'AddonCatalogEntry' });
export const catalogData = dataOf(
  z.strictObject({
    sources: z.array(z.string()),
    refreshedAt: z.record(z.string(), z.number().int()),
    addons: z.array(catalogEntrySchema),
    refresh: z
      .array(
        z.strictObject({
          url: z.string(),
          ok: z.boolean(),
          error: z.string().optional(),
          warning: z.string().optional().describe("Entries of the index left out: a built-in add-on's key, which only the built-in catalog provides (AO25)."),
        }),
      )
      .optional(),
  }),
);

export const sourcesBody = z.strictObject({
  sources: z
    .array(z.url({ protocol: /^https?$/ }).max(2048))
    .max(20)
    .refine((s) => new Set(s).size === s.length, { message: 'Each source at most once.' }),
});

export const downloadBody = z.strictObject({ key: addonKeyField, version: semverField });

export const stagedSchema = z
  .strictObject({
    key: z.string(),
    version: z.string(),
    name: z.string(),
    sha256: z.string(),
    size: z.number().int(),
    verified: z.boolean(),
    source: z.string(),
    stagedAt: z.number().int(),
  })
  .meta({ id: 'StagedAddon' });
export const stagedData = dataOf(z.strictObject({ staged: stagedSchema }));

export const planQuery = z.strictObject({
  version: semverField.optional(),
  connectionId: z.string().min(1).max(64).optional(),
});
const planAction = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values);
export const planSchema = z
  .strictObject({
    key: z.string(),
    from: z.string().nullable(),
    to: z.string().nullable(),
    hash: z.string(),
    connectionId: z.string().nullable(),
    verified: z.boolean(),
    tables: z.array(
      z.strictObject({
        name: z.string(),
        action: planAction(['create', 'alter', 'keep', 'drop'] as const),
        columns: z.array(z.strictObject({ name: z.string(), type: z.string(), action: planAction(['add', 'keep', 'drop', 'retype'] as const) })),
      }),
    ),
    endpoints: z.array(
      z.strictObject({
        ref: z.string(),
        table: z.string(),
        methods: z.array(z.string()),
        action: planAction(['create', 'keep', 'change', 'remove'] as const),
        changes: z
          .array(z.string())
          .describe(
            "For `change`: what differs from the installed version's endpoint (`table` or a definition key: `methods`, `writable`, `filterable`, …), in name order; empty otherwise.",
          ),
        definition: z
          .record(z.string(), z.unknown())
          .nullable()
          .describe(
            'What the manifest declares of the endpoint (columns, writable, filters, defaults, booking rules, limits, …); null for one the upgrade removes.',
          ),
      }),
    ),
    capabilities: z.array(z.string()),
    outbound: z.array(z.string()),
    surfaces: z.array(z.strictObject({ name: z.string(), kind: z.string(), title: z.string() })),
    hooks: z.array(z.string()),
    actions: z.array(z.string()),
    staffActions: z.array(z.string()).describe('Actions only a signed-in person with add-ons.use may call (the app key is refused).'),
    mailTemplates: z
      .array(z.strictObject({ key: z.string(), subject: z.string(), locales: z.array(z.string()) }))
      .describe('The e-mails ctx.mail.send may send (AO24), by their key under e-mail templates (`<key>.<name>`), with the languages the package brings.'),
    peak: z.number().int(),
    limits: z
      .strictObject({ memoryMb: z.number().int(), cpuMs: z.number().int() })
      .describe("The sandbox's bounds for each call of the add-on's code: its memory and its CPU time."),
    connect: z
      .strictObject({
        kind: z.enum(['secret', 'oauth2']),
        fields: z.array(z.string()).describe("A secret connection's field names."),
        authorizeUrl: z.string().nullable(),
        tokenUrl: z.string().nullable().describe('The instance exchanges codes and refreshes tokens here (under the outbound rules of ctx.fetch).'),
        scopes: z.array(z.string()),
      })
      .nullable(),
    settings: z.array(z.strictObject({ name: z.string(), type: z.string(), required: z.boolean(), secret: z.boolean() })),
    settingChanges: z
      .array(
        z.strictObject({
          instance: z.string().nullable().describe("null: the app's own settings; else a named instance's."),
          name: z.string(),
          action: planAction(['drop', 'convert', 'seal', 'invalid'] as const),
          message: z.string(),
        }),
      )
      .describe(
        'An upgrade: what happens to each stored value the new settings schema treats differently. `invalid` ones must be given new values in the upgrade (`settings`, `instanceSettings`), else it answers 400 ADDON_SETTINGS_INVALID.',
      ),
    warnings: z.array(z.string()),
    destructive: z.boolean(),
  })
  .meta({ id: 'AddonPlan' });
export const planData = dataOf(z.strictObject({ plan: planSchema }));

const settingsInput = z
  .record(z.string().max(64), z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]))
  .describe('Values by setting name; null clears one. A secret left out keeps its value.');

export const installBody = z.strictObject({
  key: addonKeyField,
  version: semverField,
  connectionId: z.string().min(1).max(64).optional(),
  planHash: z.string().regex(/^[0-9a-f]{64}$/),
  settings: settingsInput.optional(),
});
export const upgradeBody = z.strictObject({
  version: semverField,
  planHash: z.string().regex(/^[0-9a-f]{64}$/),
  connectionId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      'Where the first tables go, for an add-on installed without tables (and so without a connection); as its plan was asked with. An add-on on a connection stays there.',
    ),
  allowDestructive: z.boolean().optional(),
  settings: settingsInput.optional(),
  instanceSettings: z
    .record(instanceIdField, settingsInput)
    .optional()
    .describe("New values for named instances' settings, by instance id (those the plan lists as `invalid`, or any other)."),
});
export const patchBody = z.strictObject({ enabled: z.boolean().optional(), settings: settingsInput.optional() });
export const removeQuery = z.strictObject({ dropData: z.enum(['true', 'false']).optional() });

const settingFormField = z.strictObject({
  name: z.string(),
  type: z.enum(['string', 'number', 'integer', 'boolean']),
  title: z.string().optional(),
  description: z.string().optional(),
  enum: z.array(z.union([z.string(), z.number()])).optional(),
  default: z.union([z.string(), z.number(), z.boolean()]).optional().describe('Never given for a secret setting.'),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  minLength: z.number().int().optional(),
  maxLength: z.number().int().optional(),
  pattern: z.string().optional(),
  format: z
    .enum(SETTING_FORMATS)
    .optional()
    .describe(
      'What the string holds, for an editor rather than a text box: `opening-hours` (JSON of a week: per day, open–close ranges), `time-zone` (an IANA name).',
    ),
  required: z.boolean(),
  secret: z.boolean().describe('Write-only: its value is never returned; `secretsSet` says whether it holds one.'),
});

export const addonSchema = z
  .strictObject({
    key: z.string(),
    name: z.string(),
    version: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    connectionId: z.string().nullable(),
    tables: z.array(z.string()),
    endpoints: z.array(z.string()),
    surfaces: z.array(z.strictObject({ name: z.string(), kind: z.string(), title: z.string() })),
    capabilities: z.array(z.string()),
    actions: z.array(z.string()),
    hooks: z.array(z.string()),
    peak: z.number().int(),
    appKeyId: z.string().nullable(),
    settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    secretsSet: z.array(z.string()).describe('Secret settings that hold a value (their values are never returned).'),
    settingsSchema: z
      .array(settingFormField)
      .describe("The manifest's settings, in its order, with what a form needs to ask for each (a secret's default is left out)."),
    installedAt: z.number().int(),
    updatedAt: z.number().int(),
    connect: z
      .strictObject({
        kind: z.enum(['secret', 'oauth2']),
        fields: z
          .array(
            z.strictObject({
              name: z.string(),
              label: z.string(),
              description: z.string().optional(),
              optional: z.boolean().describe('The operator may leave it empty.'),
            }),
          )
          .describe('The fields a secret connection asks for (empty for OAuth 2).'),
        scopes: z.array(z.string()).describe('The scopes an OAuth 2 connection asks for (empty for secret).'),
      })
      .nullable()
      .describe('What connect asks for (D29); null when the add-on declares no connect.'),
    connected: z.boolean().describe('Whether connect stored fields or tokens (they are never returned).'),
    connectedAt: z.number().int().nullable(),
    connectionExpiresAt: z
      .number()
      .int()
      .nullable()
      .describe('When the stored OAuth access token expires; it is refreshed when the add-on next runs. Null otherwise.'),
  })
  .meta({ id: 'Addon' });
export const addonData = dataOf(z.strictObject({ addon: addonSchema }));
export const addonListData = dataOf(z.strictObject({ addons: z.array(addonSchema), staged: z.array(stagedSchema) }));
export const removedData = dataOf(z.strictObject({ removed: z.literal(true), key: z.string(), droppedTables: z.array(z.string()) }));

export const connectBody = z.strictObject({
  fields: z
    .record(z.string().max(64), z.string().max(10_000))
    .describe("A value for every field the add-on's connect declares (an optional one may be left out or empty); stored encrypted, never returned."),
});
export const oauthStartData = dataOf(
  z.strictObject({
    authorizeUrl: z.string().describe("The provider's authorize URL with client_id, redirect_uri, scope, state and the PKCE S256 challenge."),
    state: z.string().describe('Opens POST …/connect/oauth/complete once, from this session, for 10 minutes.'),
    redirectUri: z.string().describe('Where the provider sends the browser back (register it with the provider): the dashboard, which completes.'),
    expiresAt: z.number().int(),
  }),
);
export const oauthCompleteBody = z.strictObject({
  code: z.string().min(1).max(4096),
  state: z.string().min(1).max(256),
});
