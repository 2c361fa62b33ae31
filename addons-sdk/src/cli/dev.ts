/**
 * `svc-addon dev`: a local svc-admin instance with the add-on installed from its folder, on a
 * SQLite connection, reinstalled on every change. The SDK never imports the instance's code:
 * it starts the instance as a child process and talks to it over HTTP, as an operator would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { watch, type FSWatcher } from 'chokidar';
import { PackageError } from '../package/errors.js';
import { CheckFailed, formatProblem } from './check.js';
import { formatLogEntry, type LogEntry } from './dev-log.js';
import { DevOriginInvalid, parseDevOrigin } from './dev-outbound.js';
import { packAddon } from './pack.js';

export const DEV_FOLDER = '.svc-dev';
export const DEV_EMAIL = 'dev@localhost.test';
export const DEFAULT_DEV_PORT = 3100;
const CONNECTION_NAME = 'svc-addon dev';

export interface DevOptions {
  /** The add-on folder. */
  dir: string;
  /** The port the instance listens on (127.0.0.1); default 3100; 0 picks a free one. */
  port?: number;
  /** The svc-admin folder (its package.json is named svc-admin); default: SVC_ADMIN_DIR, else found by walking up. */
  instance?: string;
  /** Where SVC_ADMIN_DIR is read and what the instance inherits (SVC_* variables are never inherited). Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Watch the folder and reinstall on change (default true). */
  watch?: boolean;
  /** Quiet time after the last change before reinstalling (default 300 ms). */
  debounceMs?: number;
  /**
   * Origins (`http://127.0.0.1:4010`: scheme, host, port) the add-on's `ctx.fetch` may reach
   * past its outbound list and the private-address checks: local mock servers. Needs the
   * instance's sources (its dev entry, scripts/dev-instance.ts); a production build has no such switch.
   */
  allowOutbound?: readonly string[];
  /** How long the instance may take to answer /api/v1/healthz (default 90 s). */
  startTimeoutMs?: number;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

export interface DevCredentials {
  email: string;
  password: string;
}

/** What the instance now runs, after an install that worked. */
export interface DevInstalled {
  key: string;
  version: string;
  /** The app key's secret (a browser key granting the add-on's endpoints), or null without endpoints. */
  appKey: string | null;
  /** The public endpoint refs (`<key>-<ref>`). */
  endpoints: string[];
  /** Each surface's entry at GET /add-ons/{key}/bundle/…; `served`: whether the instance answered it (bundle serving, D28). */
  surfaces: Array<{ name: string; kind: string; url: string; served: boolean }>;
}

export type DevOutcome = { ok: true; installed: DevInstalled } | { ok: false; problems: string[] };

export interface DevSession {
  /** The instance's URL, e.g. http://127.0.0.1:3100. */
  url: string;
  /** The add-on folder and its `.svc-dev/` folder. */
  dir: string;
  devDir: string;
  credentials: DevCredentials;
  connectionId: string;
  /** The child process's id. */
  pid: number;
  /** The first install's outcome. */
  first: DevOutcome;
  /** The last good install (null while none worked). */
  readonly current: DevInstalled | null;
  /** Resolves with the outcome of the next install that finishes (a change, or reinstall()). */
  reinstalled(): Promise<DevOutcome>;
  /** Packs and installs again now. */
  reinstall(): Promise<DevOutcome>;
  /** Stops watching and stops the instance (SIGTERM, then SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** Resolves when the instance's process has exited, with its exit code (null: by a signal). */
  exited: Promise<number | null>;
}

export class DevError extends Error {
  override readonly name = 'DevError';
}

const isSvcAdmin = async (dir: string): Promise<boolean> => {
  try {
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
    return pkg.name === 'svc-admin';
  } catch {
    return false;
  }
};

async function walkUp(from: string): Promise<string | null> {
  let dir = resolve(from);
  for (;;) {
    if (await isSvcAdmin(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * The svc-admin folder to run: `instance`, else SVC_ADMIN_DIR, else the nearest folder up from
 * the add-on, else up from the SDK itself, whose package.json is named `svc-admin`.
 */
export async function findInstance(addonDir: string, instance?: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const explicit = instance ?? (env['SVC_ADMIN_DIR'] || undefined);
  if (explicit !== undefined) {
    const dir = resolve(explicit);
    if (!(await isSvcAdmin(dir)))
      throw new DevError(`${dir} is not an svc-admin folder (no package.json named svc-admin)${instance === undefined ? ' (from SVC_ADMIN_DIR)' : ''}.`);
    return dir;
  }
  const found = (await walkUp(addonDir)) ?? (await walkUp(dirname(fileURLToPath(import.meta.url))));
  if (!found) throw new DevError('Cannot find svc-admin: pass --instance <folder> or set SVC_ADMIN_DIR to the folder of its package.json.');
  return found;
}

/** The dev entry of an svc-admin folder with sources: the server with the add-ons plugin's dev options. */
const DEV_ENTRY = join('scripts', 'dev-instance.ts');

/**
 * How to start the instance from its folder: from sources when it has them, else its build.
 * With origins to allow, only from sources, through the dev entry.
 */
function entryOf(instanceDir: string, allowOutbound: readonly string[]): string[] {
  if (allowOutbound.length) {
    if (!existsSync(join(instanceDir, DEV_ENTRY)))
      throw new DevError(
        `--allow-outbound needs svc-admin's sources (${DEV_ENTRY}); ${instanceDir} has ${existsSync(join(instanceDir, 'kernel', 'main.ts')) ? 'sources without a dev entry (an older svc-admin)' : 'only its production build'}, which never lets an add-on reach loopback or private addresses. Point --instance (or SVC_ADMIN_DIR) at a clone of svc-admin.`,
      );
    return ['--no-node-snapshot', '--import', 'tsx', DEV_ENTRY, ...allowOutbound.flatMap((origin) => ['--allow-outbound', origin])];
  }
  if (existsSync(join(instanceDir, 'kernel', 'main.ts'))) return ['--no-node-snapshot', '--import', 'tsx', 'kernel/main.ts'];
  if (existsSync(join(instanceDir, 'build', 'server', 'main.js'))) return ['--no-node-snapshot', 'build/server/main.js'];
  throw new DevError(`${instanceDir} has neither kernel/main.ts nor build/server/main.js.`);
}

/** Listens on `port` (0: any) of 127.0.0.1 and lets go: the port that was free. */
async function freePort(port = 0): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', (e: NodeJS.ErrnoException) =>
      fail(e.code === 'EADDRINUSE' ? new DevError(`Port ${port} of 127.0.0.1 is in use: pass --port <n> (0 picks a free one).`) : e),
    );
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => ok(port));
    });
  });
}

/** A value stored once in `.svc-dev/` and read back on later runs. */
async function once(file: string, make: () => string): Promise<{ value: string; created: boolean }> {
  try {
    return { value: (await readFile(file, 'utf8')).trim(), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const value = make();
  await writeFile(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return { value, created: true };
}

interface Reply {
  status: number;
  body: {
    data?: Record<string, unknown>;
    error?: { code?: string; message?: string; params?: Record<string, unknown>; issues?: Array<{ path?: string; message?: string }> };
  } | null;
}

/** HTTP to the instance as a signed-in operator: a cookie, and Origin on unsafe requests. */
class Operator {
  private cookie: string | null = null;
  constructor(readonly url: string) {}

  async request(method: string, path: string, body?: unknown): Promise<Reply> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers['cookie'] = `svc_session=${this.cookie}`;
    if (method !== 'GET') headers['origin'] = this.url;
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${this.url}/api/v1${path}`, { method, headers, body: payload, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const match = /^svc_session=([^;]*)/.exec(line);
      if (match) this.cookie = match[1] || null;
    }
    const text = await res.text();
    let parsed: Reply['body'] = null;
    try {
      parsed = text ? (JSON.parse(text) as Reply['body']) : null;
    } catch {
      parsed = { error: { message: text.slice(0, 300) } };
    }
    return { status: res.status, body: parsed };
  }
}

class RequestFailed extends DevError {
  constructor(what: string, reply: Reply) {
    const e = reply.body?.error;
    const issues = (e?.issues ?? []).map((i) => `${i.path ?? ''}: ${i.message ?? ''}`).join('; ');
    const params = e?.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : '';
    super(`${what}: ${reply.status} ${e?.code ?? ''}${e?.message ? ` ${e.message}` : ''}${params}${issues ? ` (${issues})` : ''}`.trim());
  }
}

const expectStatus = (what: string, reply: Reply, ...ok: number[]): Record<string, unknown> => {
  if (!ok.includes(reply.status)) throw new RequestFailed(what, reply);
  return reply.body?.data ?? {};
};

/** Starts the instance, sets it up once, installs the add-on and (unless watch: false) reinstalls it on change. */
export async function startDev(options: DevOptions): Promise<DevSession> {
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = options.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const env = options.env ?? process.env;
  const dir = resolve(options.dir);
  if (!existsSync(join(dir, 'addon.json'))) throw new DevError(`${dir} has no addon.json (run svc-addon init first).`);
  const instanceDir = await findInstance(dir, options.instance, env);
  let allowOutbound: string[];
  try {
    allowOutbound = [...new Set((options.allowOutbound ?? []).map(parseDevOrigin))];
  } catch (error) {
    if (error instanceof DevOriginInvalid) throw new DevError(error.message);
    throw error;
  }
  // Before anything is started or written.
  const entry = entryOf(instanceDir, allowOutbound);
  const devDir = join(dir, DEV_FOLDER);
  const dataDir = join(devDir, 'data');
  await mkdir(dataDir, { recursive: true });
  const secret = (await once(join(devDir, 'secret'), () => randomBytes(32).toString('hex'))).value;

  // Checked before the start, so that another server on the port is never taken for the instance.
  const port = await freePort(options.port ?? DEFAULT_DEV_PORT);
  const url = `http://127.0.0.1:${port}`;
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('SVC_')) childEnv[k] = v;
  Object.assign(childEnv, {
    SVC_DATA_DIR: dataDir,
    SVC_SECRET: secret,
    SVC_HOST: '127.0.0.1',
    SVC_PORT: String(port),
    SVC_BASE_URL: url,
    SVC_PUBLIC_API_ORIGINS: url,
    SVC_LOG_LEVEL: 'info',
  });

  const logFile = join(devDir, 'instance.log');
  const log: WriteStream = createWriteStream(logFile, { flags: 'a' });
  const child: ChildProcess = spawn(process.execPath, entry, { cwd: instanceDir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let addonKey: string | null = null;
  const exited = new Promise<number | null>((ok) => {
    child.once('exit', (code) => ok(code));
    child.once('error', () => ok(-1));
  });
  let stopping = false;
  void exited.then((code) => {
    log.end();
    if (!stopping) err(`svc-addon dev: the instance stopped (exit ${code ?? 'by signal'}); see ${relative(process.cwd(), logFile) || logFile}`);
  });
  const partial = { stdout: '', stderr: '' };
  const echo = (chunk: Buffer | string, stream: 'stdout' | 'stderr') => {
    log.write(chunk);
    const lines = (partial[stream] + String(chunk)).split('\n');
    partial[stream] = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      let entry: LogEntry | null;
      try {
        entry = JSON.parse(line) as LogEntry | null;
      } catch {
        if (stream === 'stderr') err(`[instance] ${line}`);
        continue;
      }
      if (!entry || typeof entry !== 'object') continue;
      const shown = formatLogEntry(entry, addonKey);
      if (shown) for (const l of shown.lines) (shown.error ? err : out)(l);
    }
  };
  child.stdout?.on('data', (c: Buffer) => echo(c, 'stdout'));
  child.stderr?.on('data', (c: Buffer) => echo(c, 'stderr'));

  const stopChild = async (): Promise<void> => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };

  try {
    await waitHealthy(url, exited, options.startTimeoutMs ?? 90_000);
    const op = new Operator(url);
    const credentials = await signIn(op, devDir, out);
    const connectionId = await devConnection(op, devDir);
    expectStatus('turning the public API on', await op.request('PUT', '/public-api', { enabled: true }), 200);
    const installer = new Installer(op, url, dir, devDir, connectionId, out, err, (k) => (addonKey = k));
    out(`svc-addon dev: ${url}  (instance log: ${join(DEV_FOLDER, 'instance.log')})`);
    out(`  sign in    ${credentials.email} / ${credentials.password}  (in ${join(DEV_FOLDER, 'credentials.json')})`);
    out(`  data       ${join(DEV_FOLDER, 'dev.sqlite')}: disposable, each reinstall drops the add-on's tables and their rows`);
    for (const origin of allowOutbound) out(`  outbound   ${origin}  (dev only: ctx.fetch reaches it whatever outbound in addon.json says)`);
    const first = await installer.run();

    let watcher: FSWatcher | null = null;
    let timer: NodeJS.Timeout | null = null;
    if (options.watch !== false) {
      // chokidar follows a file through an editor's atomic save (write a temporary file, rename it
      // over the old one: vim, JetBrains, sed -i), which fs.watch on the old file loses silently.
      watcher = watch(dir, { ignoreInitial: true, atomic: true, ignored: (path: string) => ignored(relative(dir, path)) });
      watcher.on('all', () => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          timer = null;
          if (!stopping) void installer.run();
        }, options.debounceMs ?? 300);
      });
      watcher.on('error', (e) => err(`svc-addon dev: watching stopped: ${e instanceof Error ? e.message : String(e)}`));
      await new Promise<void>((ready) => watcher!.once('ready', ready));
      out(`Watching ${dir} for changes; Ctrl-C stops the instance.`);
    }

    return {
      url,
      dir,
      devDir,
      credentials,
      connectionId,
      pid: child.pid ?? -1,
      first,
      get current() {
        return installer.current;
      },
      reinstalled: () => installer.next(),
      reinstall: () => installer.run(),
      stop: async () => {
        await watcher?.close();
        if (timer) clearTimeout(timer);
        await installer.idle();
        await stopChild();
      },
      exited,
    };
  } catch (error) {
    await stopChild();
    if (error instanceof DevError) throw error;
    throw new DevError(`${(error as Error).message} (the instance's log: ${logFile})`, { cause: error });
  }
}

/** Changes that do not go into the package, or that dev itself writes. */
function ignored(name: string): boolean {
  const parts = name.split(sep);
  return parts.some((p) => p === DEV_FOLDER || p === 'node_modules' || p === '.git') || name.endsWith('.tgz') || /\.tgz\.partial-\d+$/.test(name);
}

async function waitHealthy(url: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new DevError('The instance stopped while starting; see .svc-dev/instance.log.');
    try {
      const res = await fetch(`${url}/api/v1/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new DevError(`The instance did not answer ${url}/api/v1/healthz within ${Math.round(timeoutMs / 1000)} s; see .svc-dev/instance.log.`);
}

/** First run: the dev super admin (its password saved and printed); later runs: sign in with it. */
async function signIn(op: Operator, devDir: string, out: (line: string) => void): Promise<DevCredentials> {
  const file = join(devDir, 'credentials.json');
  const state = expectStatus('reading the setup state', await op.request('GET', '/setup/state'), 200);
  if (state['open'] === true) {
    const credentials: DevCredentials = { email: DEV_EMAIL, password: randomBytes(12).toString('base64url') };
    await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
    expectStatus('creating the dev super admin', await op.request('POST', '/setup/super-admin', { ...credentials, name: 'Dev' }), 201);
    out(`svc-addon dev: set up a new instance in ${DEV_FOLDER}/ (super admin ${credentials.email})`);
    return credentials;
  }
  let credentials: DevCredentials;
  try {
    credentials = JSON.parse(await readFile(file, 'utf8')) as DevCredentials;
  } catch {
    throw new DevError(`The dev instance is set up but ${join(DEV_FOLDER, 'credentials.json')} is missing or unreadable; delete ${DEV_FOLDER}/ to start over.`);
  }
  expectStatus('signing in as the dev super admin', await op.request('POST', '/auth/login', { email: credentials.email, password: credentials.password }), 200);
  return credentials;
}

/** The connection on `.svc-dev/dev.sqlite` (made on the first run). */
async function devConnection(op: Operator, devDir: string): Promise<string> {
  const file = join(devDir, 'dev.sqlite');
  const list = expectStatus('listing connections', await op.request('GET', '/connections?limit=200'), 200);
  const found = (list['connections'] as Array<{ id: string; name: string; database: string | null }>).find(
    (c) => c.name === CONNECTION_NAME || c.database === file,
  );
  if (found) return found.id;
  if (!existsSync(file)) await writeFile(file, ''); // an empty file is an empty SQLite database
  const made = expectStatus(
    'creating the dev SQLite connection',
    await op.request('POST', '/connections', { name: CONNECTION_NAME, dialect: 'sqlite', url: `sqlite:${file}` }),
    201,
  );
  return (made['connection'] as { id: string }).id;
}

/** One install at a time; a change during an install runs one more after it. */
class Installer {
  current: DevInstalled | null = null;
  private running: Promise<DevOutcome> | null = null;
  private again = false;
  private waiters: Array<(o: DevOutcome) => void> = [];
  private readonly pkg: string;
  private readonly lastGood: string;
  private readonly stateFile: string;

  constructor(
    private readonly op: Operator,
    private readonly url: string,
    private readonly dir: string,
    private readonly devDir: string,
    private readonly connectionId: string,
    private readonly out: (line: string) => void,
    private readonly err: (line: string) => void,
    private readonly onKey: (key: string) => void,
  ) {
    this.pkg = join(devDir, 'package.tgz');
    this.lastGood = join(devDir, 'last-good.tgz');
    this.stateFile = join(devDir, 'installed.json');
  }

  /** The key dev last installed, in this run or an earlier one. */
  private async lastKey(): Promise<string | null> {
    try {
      const state = JSON.parse(await readFile(this.stateFile, 'utf8')) as { key?: unknown };
      return typeof state.key === 'string' ? state.key : null;
    } catch {
      return null;
    }
  }

  next(): Promise<DevOutcome> {
    return new Promise((ok) => this.waiters.push(ok));
  }

  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  run(): Promise<DevOutcome> {
    if (this.running) {
      this.again = true;
      return this.next();
    }
    this.running = (async () => {
      let outcome: DevOutcome;
      do {
        this.again = false;
        outcome = await this.once();
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w(outcome);
      } while (this.again);
      this.running = null;
      return outcome;
    })();
    return this.running;
  }

  private async once(): Promise<DevOutcome> {
    let problems: string[];
    try {
      const installed = await this.install();
      this.current = installed;
      await copyFile(this.pkg, this.lastGood);
      await writeFile(this.stateFile, `${JSON.stringify({ key: installed.key, version: installed.version })}\n`);
      this.print(installed);
      return { ok: true, installed };
    } catch (error) {
      if (error instanceof CheckFailed) problems = error.problems.map(formatProblem);
      else if (error instanceof PackageError) problems = [`package: ${error.reason}${error.path ? ` (${error.path})` : ''}: ${error.message}`];
      else problems = [(error as Error).message];
    }
    const where = join(this.dir, 'addon.json');
    this.err(`svc-addon dev: not installed (${where}):`);
    for (const p of problems) this.err(`  ${p}`);
    if (this.current) {
      const kept = await this.restore();
      this.err(
        kept
          ? `  The instance keeps running ${this.current.key} ${this.current.version} (the last good version).`
          : '  The last good version could not be put back; fix the problem and save again.',
      );
    } else this.err('  Fix the problem and save again.');
    return { ok: false, problems };
  }

  private async install(): Promise<DevInstalled> {
    const packed = await packAddon(this.dir, this.pkg);
    for (const w of packed.warnings) this.err(`warning: ${w}`);
    return this.installFile(this.pkg);
  }

  /** After a failed install that may have removed the last good one: install last-good.tgz again. */
  private async restore(): Promise<boolean> {
    if (!existsSync(this.lastGood) || !this.current) return false;
    try {
      const list = expectStatus('listing add-ons', await this.op.request('GET', '/add-ons'), 200);
      const installed = (list['addons'] as Array<{ key: string }>).some((a) => a.key === this.current!.key);
      if (installed) return true;
      this.current = await this.installFile(this.lastGood);
      return true;
    } catch (error) {
      this.err(`  ${(error as Error).message}`);
      return false;
    }
  }

  private async installFile(file: string): Promise<DevInstalled> {
    const op = this.op;
    const bytes = await readFile(file);
    const upload = () => {
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'application/gzip' }), 'package.tgz');
      return op.request('POST', '/add-ons/upload', form);
    };
    let uploaded = await upload();
    // The instance keeps an installed version's package as it is (other bytes under it: 409);
    // dev data is disposable, so the installed add-on goes first and the new bytes take its place.
    const held = uploaded.status === 409 && uploaded.body?.error?.code === 'ADDON_VERSION_INSTALLED' ? uploaded.body.error.params?.['key'] : undefined;
    if (typeof held === 'string') {
      expectStatus(`removing ${held} (with its data)`, await op.request('DELETE', `/add-ons/${encodeURIComponent(held)}?dropData=true`), 200);
      uploaded = await upload();
    }
    const staged = expectStatus('uploading the package', uploaded, 201)['staged'] as { key: string; version: string };
    const { key, version } = staged;
    this.onKey(key);
    const list = expectStatus('listing add-ons', await op.request('GET', '/add-ons'), 200);
    const addons = list['addons'] as Array<{ key: string; version: string }>;
    // Dev data is disposable: the installed version goes with its tables and rows, and so does
    // the add-on dev installed before under another key (addon.json's key changed).
    const previous = this.current?.key ?? (await this.lastKey());
    for (const old of new Set([key, ...(previous && previous !== key ? [previous] : [])])) {
      if (addons.some((a) => a.key === old))
        expectStatus(`removing ${old} (with its data)`, await op.request('DELETE', `/add-ons/${encodeURIComponent(old)}?dropData=true`), 200);
    }
    const planned = expectStatus(
      'planning the install',
      await op.request(
        'GET',
        `/add-ons/${encodeURIComponent(key)}/plan?version=${encodeURIComponent(version)}&connectionId=${encodeURIComponent(this.connectionId)}`,
      ),
      200,
    );
    const plan = planned['plan'] as { hash: string; warnings?: string[] };
    const made = expectStatus('installing', await op.request('POST', '/add-ons', { key, version, connectionId: this.connectionId, planHash: plan.hash }), 201);
    const addon = made['addon'] as { endpoints: string[]; appKeyId: string | null; surfaces: Array<{ name: string; kind: string }> };
    let appKey: string | null = null;
    if (addon.appKeyId) {
      const revealed = expectStatus('revealing the app key', await op.request('GET', `/public-keys/${encodeURIComponent(addon.appKeyId)}/reveal`), 200);
      appKey = typeof revealed['secret'] === 'string' ? revealed['secret'] : null;
    }
    const manifest = JSON.parse(await readFile(join(this.dir, 'addon.json'), 'utf8')) as { surfaces?: Array<{ name: string; entry?: string }> };
    const surfaces: DevInstalled['surfaces'] = [];
    for (const s of addon.surfaces) {
      const entry = manifest.surfaces?.find((m) => m.name === s.name)?.entry ?? 'index.html';
      const url = `${this.url}/api/v1/add-ons/${key}/bundle/${s.name}/${entry}`;
      const served = await fetch(url, { method: 'HEAD' }).then(
        (r) => r.ok,
        () => false,
      );
      surfaces.push({ name: s.name, kind: s.kind, url, served });
    }
    return { key, version, appKey, endpoints: addon.endpoints, surfaces };
  }

  private print(i: DevInstalled): void {
    this.out(
      `svc-addon dev: installed ${i.key} ${i.version} on ${join(DEV_FOLDER, 'dev.sqlite')} (earlier rows of the add-on's tables are gone: dev data is disposable)`,
    );
    if (i.appKey) this.out(`  app key    ${i.appKey}`);
    for (const ref of i.endpoints) this.out(`  endpoint   ${ref}  ${this.url}/api/v1/public/records/${ref}`);
    for (const s of i.surfaces)
      this.out(`  surface    ${s.name} (${s.kind})  ${s.url}${s.served ? '' : '  (this instance does not serve add-on bundles yet)'}`);
  }
}
