import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'svc-config-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig({ SVC_DATA_DIR: tmp(), ...env });
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
};

describe('configuration from the environment (D1, D2)', () => {
  it('has the documented defaults', () => {
    const dir = tmp();
    const c = loadConfig({ SVC_DATA_DIR: dir });
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      metaUrl: null,
      runtime: 'self-host',
      corsOrigins: [],
      publicApiOrigins: [],
      trustProxy: false,
      logLevel: 'info',
    });
  });

  it('reads the HTTP deadlines and connection caps, with defaults, and refuses nonsense', () => {
    expect(loadConfig({ SVC_DATA_DIR: tmp() }).http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 120_000,
      maxConnections: 4096,
      maxConnectionsPerAddress: 256,
    });
    const c = loadConfig({
      SVC_DATA_DIR: tmp(),
      SVC_HEADERS_TIMEOUT_MS: '5000',
      SVC_REQUEST_TIMEOUT_MS: '600000',
      SVC_MAX_CONNECTIONS: '100',
      SVC_MAX_CONNECTIONS_PER_ADDRESS: '0',
    });
    expect(c.http).toEqual({ headersTimeoutMs: 5000, requestTimeoutMs: 600_000, maxConnections: 100, maxConnectionsPerAddress: 0 });
    // Behind a trusted proxy every connection comes from the proxy: no per-address cap.
    expect(loadConfig({ SVC_DATA_DIR: tmp(), SVC_TRUST_PROXY: 'true' }).http.maxConnectionsPerAddress).toBe(0);
    // The whole request's deadline is never shorter than the headers' one.
    expect(loadConfig({ SVC_DATA_DIR: tmp(), SVC_HEADERS_TIMEOUT_MS: '20000', SVC_REQUEST_TIMEOUT_MS: '1000' }).http.requestTimeoutMs).toBe(20_000);
    expect(refusal({ SVC_HEADERS_TIMEOUT_MS: '0' })).toMatch(/SVC_HEADERS_TIMEOUT_MS must be a whole number of milliseconds from 100/);
    expect(refusal({ SVC_REQUEST_TIMEOUT_MS: '1.5' })).toMatch(/SVC_REQUEST_TIMEOUT_MS/);
    expect(refusal({ SVC_MAX_CONNECTIONS: '-1' })).toMatch(/SVC_MAX_CONNECTIONS must be/);
    expect(refusal({ SVC_MAX_CONNECTIONS_PER_ADDRESS: 'lots' })).toMatch(/SVC_MAX_CONNECTIONS_PER_ADDRESS/);
  });

  it('reads SVC_SHUTDOWN_GRACE_MS, 10 s by default, and refuses nonsense', () => {
    expect(loadConfig({ SVC_DATA_DIR: tmp() }).shutdownGraceMs).toBe(10_000);
    expect(loadConfig({ SVC_DATA_DIR: tmp(), SVC_SHUTDOWN_GRACE_MS: '0' }).shutdownGraceMs).toBe(0);
    expect(loadConfig({ SVC_DATA_DIR: tmp(), SVC_SHUTDOWN_GRACE_MS: '30000' }).shutdownGraceMs).toBe(30_000);
    expect(refusal({ SVC_SHUTDOWN_GRACE_MS: '10s' })).toBe(
      'Invalid configuration: SVC_SHUTDOWN_GRACE_MS must be a whole number of milliseconds from 0 to 600000',
    );
    expect(refusal({ SVC_SHUTDOWN_GRACE_MS: '600001' })).toMatch(/^Invalid configuration: SVC_SHUTDOWN_GRACE_MS must be/);
  });

  it('reads SVC_WIDGET_CACHE_MS, 10 s by default, 0 turning it off, and refuses nonsense', () => {
    expect(loadConfig({ SVC_DATA_DIR: tmp() }).widgetCacheMs).toBe(10_000);
    expect(loadConfig({ SVC_DATA_DIR: tmp(), SVC_WIDGET_CACHE_MS: '0' }).widgetCacheMs).toBe(0);
    expect(refusal({ SVC_WIDGET_CACHE_MS: '-1' })).toMatch(/^Invalid configuration: SVC_WIDGET_CACHE_MS must be a whole number of milliseconds/);
  });

  it('generates SVC_SECRET once, keeps it with mode 0600, and reuses it', () => {
    const dir = tmp();
    const first = loadConfig({ SVC_DATA_DIR: dir }).secret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
    expect(loadConfig({ SVC_DATA_DIR: dir }).secret).toBe(first);
    expect(readFileSync(join(dir, 'secret'), 'utf8').trim()).toBe(first);
  });

  it('uses SVC_SECRET when given and writes no secret file', () => {
    const dir = tmp();
    const c = loadConfig({ SVC_DATA_DIR: dir, SVC_SECRET: 's'.repeat(40) });
    expect(c.secret).toBe('s'.repeat(40));
    expect(() => statSync(join(dir, 'secret'))).toThrow();
  });

  it('picks the file store: meta with a shared meta store, local without, and refuses anything else', () => {
    const env = (more: Record<string, string> = {}) => ({ SVC_DATA_DIR: tmp(), SVC_SECRET: 's'.repeat(40), ...more });
    expect(loadConfig(env()).fileStore).toBe('local');
    expect(loadConfig(env({ SVC_META_URL: 'postgres://u@h/db' })).fileStore).toBe('meta');
    expect(loadConfig(env({ SVC_META_URL: 'postgres://u@h/db', SVC_FILE_STORE: 'local' })).fileStore).toBe('local');
    expect(loadConfig(env({ SVC_FILE_STORE: 'meta' })).fileStore).toBe('meta');
    expect(refusal({ SVC_FILE_STORE: 'disk' })).toBe('Invalid configuration: SVC_FILE_STORE must be local, meta or s3');
    expect(loadConfig(env()).s3).toBeNull();
  });

  it('reads the s3 driver settings, with defaults, and refuses a missing bucket or half a key pair without showing the secret', () => {
    const env = (more: Record<string, string> = {}) => ({ SVC_DATA_DIR: tmp(), SVC_SECRET: 's'.repeat(40), SVC_FILE_STORE: 's3', ...more });
    const plain = loadConfig(env({ SVC_S3_BUCKET: 'exports' }));
    expect(plain.fileStore).toBe('s3');
    expect(plain.s3).toEqual({ bucket: 'exports', endpoint: null, region: 'us-east-1', credentials: null, forcePathStyle: false, prefix: 'svc-files/' });
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const full = loadConfig(
      env({
        SVC_S3_BUCKET: 'exports',
        SVC_S3_ENDPOINT: 'http://minio.local:9000/',
        SVC_S3_REGION: 'eu-west-3',
        SVC_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
        SVC_S3_SECRET_ACCESS_KEY: secret,
        SVC_S3_FORCE_PATH_STYLE: 'true',
        SVC_S3_PREFIX: 'tenant-a/files/',
      }),
    );
    expect(full.s3).toMatchObject({ endpoint: 'http://minio.local:9000', region: 'eu-west-3', forcePathStyle: true, prefix: 'tenant-a/files/' });
    expect(full.s3!.credentials!.accessKeyId).toBe('AKIAEXAMPLE');
    expect(full.s3!.credentials!.secretAccessKey).toBe(secret);
    // A log or JSON of the configuration leaves the secret out.
    expect(JSON.stringify(full)).not.toContain(secret);
    expect(JSON.stringify(full.s3)).toContain('AKIAEXAMPLE');

    expect(refusal({ SVC_FILE_STORE: 's3' })).toBe('Invalid configuration: SVC_S3_BUCKET must be set with SVC_FILE_STORE=s3');
    expect(refusal({ SVC_FILE_STORE: 's3', SVC_S3_BUCKET: 'bkt', SVC_S3_SECRET_ACCESS_KEY: secret })).toBe(
      'Invalid configuration: SVC_S3_ACCESS_KEY_ID must be set with SVC_S3_SECRET_ACCESS_KEY',
    );
    expect(refusal({ SVC_FILE_STORE: 's3', SVC_S3_BUCKET: 'bkt', SVC_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE' })).toBe(
      'Invalid configuration: SVC_S3_SECRET_ACCESS_KEY must be set with SVC_S3_ACCESS_KEY_ID',
    );
    expect(refusal({ SVC_FILE_STORE: 's3', SVC_S3_BUCKET: 'bkt', SVC_S3_ENDPOINT: 'minio:9000' })).toBe(
      'Invalid configuration: SVC_S3_ENDPOINT must be an http(s) URL such as https://minio.example.com:9000',
    );
    expect(refusal({ SVC_FILE_STORE: 's3', SVC_S3_BUCKET: 'bkt', SVC_S3_FORCE_PATH_STYLE: 'maybe' })).toMatch(
      /^Invalid configuration: SVC_S3_FORCE_PATH_STYLE must be one of/,
    );
    expect(refusal({ SVC_FILE_STORE: 's3', SVC_S3_BUCKET: 'bkt', SVC_S3_PREFIX: 'no-slash' })).toMatch(/^Invalid configuration: SVC_S3_PREFIX must be/);
  });

  it('reads SVC_IMPORT_MAX_BYTES as bytes and refuses anything else', () => {
    expect(loadConfig({ SVC_DATA_DIR: tmp() }).importMaxBytes).toBeNull();
    expect(loadConfig({ SVC_DATA_DIR: tmp(), SVC_IMPORT_MAX_BYTES: '104857600' }).importMaxBytes).toBe(104857600);
    for (const bad of ['0', '-1', '1.5', '50MB', '99999999999999999999'])
      expect(refusal({ SVC_IMPORT_MAX_BYTES: bad })).toBe('Invalid configuration: SVC_IMPORT_MAX_BYTES must be a positive whole number of bytes');
  });

  it('refuses SVC_CORS_ORIGINS=* with the reason', () => {
    expect(refusal({ SVC_CORS_ORIGINS: '*' })).toBe(
      'Invalid configuration: SVC_CORS_ORIGINS must list exact origins: "*" is refused because responses are credentialed',
    );
  });

  it('accepts exact origins and refuses paths or garbage', () => {
    expect(loadConfig({ SVC_DATA_DIR: tmp(), SVC_CORS_ORIGINS: 'https://a.example, http://localhost:5173' }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
    expect(refusal({ SVC_CORS_ORIGINS: 'https://a.example/path' })).toContain('SVC_CORS_ORIGINS must hold bare origins');
    expect(refusal({ SVC_PUBLIC_API_ORIGINS: 'not a url' })).toContain('SVC_PUBLIC_API_ORIGINS must be a comma-separated list of origins');
  });

  it.each([
    [{ SVC_PORT: 'abc' }, 'SVC_PORT must be an integer from 0 to 65535 (got "abc")'],
    [{ SVC_PORT: '70000' }, 'SVC_PORT must be an integer from 0 to 65535'],
    [{ SVC_META_URL: 'mongodb://x' }, 'SVC_META_URL must be a postgres://… or mysql://… URL'],
    [{ SVC_SECRET: 'short' }, 'SVC_SECRET must be at least 32 characters'],
    [{ SVC_RUNTIME: 'cloud' }, 'SVC_RUNTIME must be self-host or desktop'],
    [{ SVC_LOG_LEVEL: 'loud' }, 'SVC_LOG_LEVEL must be one of'],
    [{ SVC_TRUST_PROXY: 'maybe' }, 'SVC_TRUST_PROXY must be true, false, a hop count'],
    [{ SVC_BASE_URL: 'admin.example.com' }, 'SVC_BASE_URL must be an http(s) URL'],
    [{ SVC_NETWORK_FEATURES: 'perhaps' }, 'SVC_NETWORK_FEATURES must be one of true, false'],
  ])('refuses %o with one line naming the variable', (env, message) => {
    const msg = refusal(env as Record<string, string>);
    expect(msg).toContain(message);
    expect(msg).not.toContain('\n');
  });

  it('parses SVC_TRUST_PROXY forms', () => {
    expect(loadConfig({ SVC_DATA_DIR: tmp(), SVC_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ SVC_DATA_DIR: tmp(), SVC_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ SVC_DATA_DIR: tmp(), SVC_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });
});

describe('npm start with a bad environment', () => {
  it('stops with exactly one line on stderr and exit code 1', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const run = spawnSync(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'kernel/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, SVC_DATA_DIR: tmp(), SVC_CORS_ORIGINS: '*' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'Invalid configuration: SVC_CORS_ORIGINS must list exact origins: "*" is refused because responses are credentialed',
    ]);
  });
});
