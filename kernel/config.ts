import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync, statSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_PASSWORD_HASH, type PasswordHashCost } from './identity/passwords.js';

/** Thrown for a bad environment: main prints `message` as the one line and exits. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const bool = (name: string, fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
      error: () => `${name} must be one of true, false, 1, 0, yes, no, on, off`,
    })
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes', 'on'].includes(v)));

function originList(name: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return [] as string[];
      const out: string[] = [];
      for (const part of raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        if (part === '*' || part.includes('*')) {
          ctx.addIssue({
            code: 'custom',
            message: `${name} must list exact origins: "*" is refused because responses are credentialed`,
          });
          return z.NEVER;
        }
        let url: URL;
        try {
          url = new URL(part);
        } catch {
          ctx.addIssue({ code: 'custom', message: `${name} must be a comma-separated list of origins such as https://shop.example.com (got "${part}")` });
          return z.NEVER;
        }
        if (!['http:', 'https:'].includes(url.protocol) || url.origin !== part.replace(/\/$/, '')) {
          ctx.addIssue({ code: 'custom', message: `${name} must hold bare origins (scheme://host[:port], no path) (got "${part}")` });
          return z.NEVER;
        }
        out.push(url.origin);
      }
      return out;
    });
}

/** A whole number from `min` to `max`, or the default when unset. */
function wholeNumber(name: string, fallback: number, min: number, max: number, unit: string) {
  return z
    .string()
    .optional()
    .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= min && Number(v) <= max), {
      error: `${name} must be a whole number of ${unit} from ${min} to ${max}`,
    })
    .transform((v) => (v === undefined ? fallback : Number(v)));
}

/**
 * SVC_PASSWORD_HASH: argon2id's cost as `m=<KiB>,t=<passes>,p=<lanes>` (in any order, as in the hash
 * itself). Hashes already stored keep their own cost: verify reads it from the hash.
 */
const passwordHash = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined) return { ...DEFAULT_PASSWORD_HASH };
    const pairs = new Map(
      v
        .replace(/\s+/g, '')
        .split(',')
        .map((kv): [string, string] => (/^([a-z])=(\d{1,7})$/.exec(kv)?.slice(1, 3) as [string, string]) ?? ['', '']),
    );
    const read = (key: string) => Number(pairs.get(key) ?? 0);
    const [memoryKib, passes, lanes] = [read('m'), read('t'), read('p')];
    const wellFormed = pairs.size === 3 && memoryKib > 0 && passes > 0 && lanes > 0;
    if (!wellFormed || memoryKib < 1024 || memoryKib > 4_194_304 || passes > 20 || lanes > 16) {
      ctx.addIssue({
        code: 'custom',
        message: 'SVC_PASSWORD_HASH must be m=<KiB from 1024 to 4194304>,t=<passes from 1 to 20>,p=<lanes from 1 to 16>, such as m=65536,t=3,p=4',
      });
      return z.NEVER;
    }
    return { memoryKib, passes, lanes };
  });

/** SVC_TRUST_PROXY: false, true, a hop count, or a comma list of addresses/CIDRs (fastify's trustProxy). */
const trustProxy = z
  .string()
  .optional()
  .transform((raw, ctx): boolean | number | string[] => {
    if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
    if (raw === 'true') return true;
    if (/^\d+$/.test(raw)) return Number(raw);
    const list = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (list.every((s) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(s))) return list;
    ctx.addIssue({ code: 'custom', message: `SVC_TRUST_PROXY must be true, false, a hop count or a comma list of addresses/CIDRs (got "${raw}")` });
    return z.NEVER;
  });

const envSchema = z.object({
  SVC_HOST: z.string().min(1, 'SVC_HOST must not be empty').default('127.0.0.1'),
  SVC_PORT: z
    .string()
    .default('3000')
    .refine((v) => /^\d+$/.test(v) && Number(v) <= 65535, { error: (i) => `SVC_PORT must be an integer from 0 to 65535 (got "${String(i.input)}")` })
    .transform(Number),
  SVC_DATA_DIR: z.string().min(1, 'SVC_DATA_DIR must not be empty').default('./data'),
  SVC_META_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || /^(postgres|postgresql|mysql|mariadb):\/\/.+/.test(v), {
      error: 'SVC_META_URL must be a postgres://… or mysql://… URL (unset for the embedded SQLite store)',
    }),
  SVC_SECRET: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || v.length >= 32, {
      error: 'SVC_SECRET must be at least 32 characters (unset to generate one in the data dir)',
    }),
  SVC_BASE_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || /^https?:\/\/[^/]+/.test(v), {
      error: 'SVC_BASE_URL must be an http(s) URL such as https://admin.example.com',
    }),
  SVC_CORS_ORIGINS: originList('SVC_CORS_ORIGINS'),
  SVC_PUBLIC_API_ORIGINS: originList('SVC_PUBLIC_API_ORIGINS'),
  SVC_RUNTIME: z.enum(['self-host', 'desktop'], { error: 'SVC_RUNTIME must be self-host or desktop' }).default('self-host'),
  SVC_TRUST_PROXY: trustProxy,
  SVC_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'SVC_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  SVC_NETWORK_FEATURES: bool('SVC_NETWORK_FEATURES', true),
  SVC_LAN_SHARE: bool('SVC_LAN_SHARE', false),
  SVC_DESKTOP_DEMO: bool('SVC_DESKTOP_DEMO', false),
  SVC_IMPORT_MAX_BYTES: z
    .string()
    .optional()
    .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= 1 && Number.isSafeInteger(Number(v))), {
      error: 'SVC_IMPORT_MAX_BYTES must be a positive whole number of bytes',
    }),
  SVC_IMPORT_MAX_UNPACKED_BYTES: wholeNumber('SVC_IMPORT_MAX_UNPACKED_BYTES', 1024 * 1024 * 1024, 1024 * 1024, 4 * 1024 * 1024 * 1024 - 1, 'bytes'),
  SVC_IMPORT_WORKER_MEMORY_MB: wholeNumber('SVC_IMPORT_WORKER_MEMORY_MB', 768, 64, 65_536, 'MB'),
  SVC_HEADERS_TIMEOUT_MS: wholeNumber('SVC_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000, 'milliseconds'),
  SVC_REQUEST_TIMEOUT_MS: wholeNumber('SVC_REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000, 'milliseconds'),
  SVC_MAX_CONNECTIONS: wholeNumber('SVC_MAX_CONNECTIONS', 4096, 1, 1_000_000, 'connections'),
  SVC_MAX_CONNECTIONS_PER_ADDRESS: wholeNumber('SVC_MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000, 'connections'),
  SVC_SHUTDOWN_GRACE_MS: wholeNumber('SVC_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000, 'milliseconds'),
  SVC_PASSWORD_HASH: passwordHash,
  SVC_WIDGET_CACHE_MS: wholeNumber('SVC_WIDGET_CACHE_MS', 10_000, 0, 600_000, 'milliseconds'),
  SVC_ADDON_SCHEDULE_MIN_SECONDS: wholeNumber('SVC_ADDON_SCHEDULE_MIN_SECONDS', 60, 1, 86_400, 'seconds'),
  SVC_ADDON_MAIL_PER_HOUR: wholeNumber('SVC_ADDON_MAIL_PER_HOUR', 100, 0, 100_000, 'mails'),
  SVC_FILE_STORE: z.enum(['local', 'meta', 's3'], { error: 'SVC_FILE_STORE must be local, meta or s3' }).optional(),
  SVC_S3_BUCKET: z
    .string()
    .optional()
    .refine((v) => v === undefined || /^[a-zA-Z0-9][a-zA-Z0-9._-]{1,254}$/.test(v), { error: 'SVC_S3_BUCKET must be a bucket name' }),
  SVC_S3_ENDPOINT: z
    .string()
    .optional()
    .refine((v) => v === undefined || /^https?:\/\/[^/]+/.test(v), { error: 'SVC_S3_ENDPOINT must be an http(s) URL such as https://minio.example.com:9000' }),
  SVC_S3_REGION: z
    .string()
    .optional()
    .refine((v) => v === undefined || /^[a-z0-9-]+$/.test(v), { error: 'SVC_S3_REGION must be a region name such as us-east-1' }),
  SVC_S3_ACCESS_KEY_ID: z.string().optional(),
  // Never echoed: a message about it names the variable only.
  SVC_S3_SECRET_ACCESS_KEY: z.string().optional(),
  SVC_S3_FORCE_PATH_STYLE: bool('SVC_S3_FORCE_PATH_STYLE', false),
  SVC_S3_PREFIX: z
    .string()
    .optional()
    .refine((v) => v === undefined || /^([A-Za-z0-9._-]+\/)*$/.test(v), {
      error: 'SVC_S3_PREFIX must be folder names each ending in / (letters, digits, . _ -), such as svc-files/',
    }),
  SVC_TELEMETRY_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || /^https?:\/\/.+/.test(v), { error: 'SVC_TELEMETRY_URL must be an http(s) URL' }),
  SVC_UPDATE_CHECK_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || /^https?:\/\/.+/.test(v), { error: 'SVC_UPDATE_CHECK_URL must be an http(s) URL' }),
});

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  metaUrl: string | null;
  secret: string;
  baseUrl: string | null;
  corsOrigins: string[];
  publicApiOrigins: string[];
  runtime: 'self-host' | 'desktop';
  trustProxy: boolean | number | string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  networkFeatures: boolean;
  lanShare: boolean;
  desktopDemo: boolean;
  updateCheckUrl: string;
  /** Where the weekly anonymous usage report goes once an admin turns it on (BR3); null: nowhere, it cannot be turned on. */
  telemetryUrl: string | null;
  /** The largest import upload in bytes, unless the `imports` setting says otherwise; null: the plugin's default. */
  importMaxBytes: number | null;
  /** What an uploaded XLSX may unpack to, and the heap of the worker thread that reads it (decisions IM6). */
  importXlsx: { maxUnpackedBytes: number; workerMemoryMb: number };
  /** Deadlines and caps that keep slow or many clients from holding the server (decisions K22). */
  http: HttpLimits;
  /** On SIGTERM/SIGINT, how long requests in flight get to finish before their connections are cut (decisions K43). */
  shutdownGraceMs: number;
  /** How long a widget's result answers the same statement again (widget-data WD6); 0: never. */
  widgetCacheMs: number;
  /** argon2id's cost for new password hashes (SVC_PASSWORD_HASH). */
  passwordHash: PasswordHashCost;
  /** Where uploads, error reports and exports are kept (decisions K45): `meta` by default with SVC_META_URL, else `local`. */
  fileStore: 'local' | 'meta' | 's3';
  /** The operator's bounds on add-ons (decisions AO29, AO24). */
  addons: AddonLimits;
  /** The bucket of the `s3` driver; null with the other drivers. */
  s3: S3Config | null;
}

export interface S3Config {
  bucket: string;
  /** For MinIO, Ceph, R2…; null: AWS. */
  endpoint: string | null;
  region: string;
  /** Null: the SDK's default chain (environment, profile, instance role). The secret is not enumerable, so no log or JSON of the config shows it. */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  forcePathStyle: boolean;
  /** Put before every object key; empty or ending in `/`. */
  prefix: string;
}

export interface AddonLimits {
  /** The shortest time between two runs of one `schedule:` hook, in ms (SVC_ADDON_SCHEDULE_MIN_SECONDS). */
  scheduleMinIntervalMs: number;
  /** How many e-mails one add-on may send in a rolling hour, all replicas together (SVC_ADDON_MAIL_PER_HOUR); 0: none. */
  mailPerHour: number;
}

export interface HttpLimits {
  /** From connection (or the previous request) to the end of the request's headers. */
  headersTimeoutMs: number;
  /** From the start of a request to the end of its body. */
  requestTimeoutMs: number;
  maxConnections: number;
  /** Open connections from one peer address; 0: no cap. Not applied behind a trusted proxy (every connection comes from it). */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_UPDATE_CHECK_URL = 'https://registry.npmjs.org/svc-admin/latest';

/** Reads the environment once. Throws ConfigError with a single line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const picked: Record<string, string | undefined> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const v = env[key];
    picked[key] = v === '' ? undefined : v;
  }
  const parsed = envSchema.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? '');
    const msg = issue.message.startsWith(variable) ? issue.message : `${variable}: ${issue.message}`;
    throw new ConfigError(`Invalid configuration: ${msg}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.SVC_DATA_DIR);
  const fileStore = e.SVC_FILE_STORE ?? (e.SVC_META_URL ? 'meta' : 'local');
  return {
    host: e.SVC_HOST,
    port: e.SVC_PORT,
    dataDir,
    metaUrl: e.SVC_META_URL || null,
    secret: e.SVC_SECRET || loadOrCreateSecret(dataDir),
    baseUrl: e.SVC_BASE_URL ? e.SVC_BASE_URL.replace(/\/$/, '') : null,
    corsOrigins: e.SVC_CORS_ORIGINS,
    publicApiOrigins: e.SVC_PUBLIC_API_ORIGINS,
    runtime: e.SVC_RUNTIME,
    trustProxy: e.SVC_TRUST_PROXY,
    logLevel: e.SVC_LOG_LEVEL,
    networkFeatures: e.SVC_NETWORK_FEATURES,
    lanShare: e.SVC_LAN_SHARE,
    desktopDemo: e.SVC_DESKTOP_DEMO,
    updateCheckUrl: e.SVC_UPDATE_CHECK_URL || DEFAULT_UPDATE_CHECK_URL,
    telemetryUrl: e.SVC_TELEMETRY_URL || null,
    importMaxBytes: e.SVC_IMPORT_MAX_BYTES ? Number(e.SVC_IMPORT_MAX_BYTES) : null,
    importXlsx: { maxUnpackedBytes: e.SVC_IMPORT_MAX_UNPACKED_BYTES, workerMemoryMb: e.SVC_IMPORT_WORKER_MEMORY_MB },
    fileStore,
    s3: fileStore === 's3' ? s3Config(e) : null,
    http: {
      headersTimeoutMs: e.SVC_HEADERS_TIMEOUT_MS,
      // Node refuses a headers deadline beyond the whole request's.
      requestTimeoutMs: Math.max(e.SVC_REQUEST_TIMEOUT_MS, e.SVC_HEADERS_TIMEOUT_MS),
      maxConnections: e.SVC_MAX_CONNECTIONS,
      maxConnectionsPerAddress: e.SVC_TRUST_PROXY === false ? e.SVC_MAX_CONNECTIONS_PER_ADDRESS : 0,
    },
    shutdownGraceMs: e.SVC_SHUTDOWN_GRACE_MS,
    widgetCacheMs: e.SVC_WIDGET_CACHE_MS,
    passwordHash: e.SVC_PASSWORD_HASH,
    addons: { scheduleMinIntervalMs: e.SVC_ADDON_SCHEDULE_MIN_SECONDS * 1000, mailPerHour: e.SVC_ADDON_MAIL_PER_HOUR },
  };
}

function s3Config(e: z.infer<typeof envSchema>): S3Config {
  if (!e.SVC_S3_BUCKET) throw new ConfigError('Invalid configuration: SVC_S3_BUCKET must be set with SVC_FILE_STORE=s3');
  const id = e.SVC_S3_ACCESS_KEY_ID;
  const secret = e.SVC_S3_SECRET_ACCESS_KEY;
  if (id && !secret) throw new ConfigError('Invalid configuration: SVC_S3_SECRET_ACCESS_KEY must be set with SVC_S3_ACCESS_KEY_ID');
  if (secret && !id) throw new ConfigError('Invalid configuration: SVC_S3_ACCESS_KEY_ID must be set with SVC_S3_SECRET_ACCESS_KEY');
  let credentials: S3Config['credentials'] = null;
  if (id && secret) {
    credentials = { accessKeyId: id } as { accessKeyId: string; secretAccessKey: string };
    Object.defineProperty(credentials, 'secretAccessKey', { value: secret, enumerable: false });
  }
  return {
    bucket: e.SVC_S3_BUCKET,
    endpoint: e.SVC_S3_ENDPOINT ? e.SVC_S3_ENDPOINT.replace(/\/$/, '') : null,
    region: e.SVC_S3_REGION ?? 'us-east-1',
    credentials,
    forcePathStyle: e.SVC_S3_FORCE_PATH_STYLE,
    prefix: e.SVC_S3_PREFIX ?? 'svc-files/',
  };
}

/** The generated secret is written once with O_EXCL so two processes starting together agree on it. */
function loadOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, 'secret');
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    throw new ConfigError(`Invalid configuration: SVC_DATA_DIR (${dataDir}) cannot be created: ${(err as Error).message}`);
  }
  if (!existsSync(file)) {
    try {
      writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new ConfigError(`Invalid configuration: SVC_DATA_DIR (${dataDir}) is not writable: ${(err as Error).message}`);
      }
    }
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32)
    throw new ConfigError(`Invalid configuration: the secret file ${file} is shorter than 32 characters; delete it to generate a new one`);
  return secret;
}
