import { randomUUID } from 'node:crypto';
import { projectPath } from './paths.js';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AuditLog } from './audit.js';
import type { Config } from './config.js';
import type { AudienceGate } from './contract/audience.js';
import { SIGNED_IN } from './contract/route.js';
import { SecretBox, TokenSigner } from './crypto.js';
import { Mailer } from './mail/mailer.js';
import { NOTIFICATION_CREATED, NotificationService, notificationSchema } from './notifications.js';
import { EventBus, type EventBridge } from './events/bus.js';
import { startPgBridge } from './events/pg-bridge.js';
import { installWebSocket } from './events/ws.js';
import { installCookies } from './http/cookies.js';
import { HttpDrain } from './http/drain.js';
import { installErrorHandler } from './http/errors.js';
import { declareAudienceCaller } from './http/audience.js';
import { HostRoutes } from './http/host-routes.js';
import { mountMultipartRoute } from './http/multipart.js';
import { API_PREFIX, mountRoute } from './http/routes.js';
import { schemaCompilersOnFirstUse } from './http/schema-compilers.js';
import { installSecurityHeaders } from './http/security-headers.js';
import { capConnections, clientErrorHandler, serverOptions } from './http/slow-clients.js';
import { installSpaHost } from './http/spa.js';
import { installCompression } from './http/compression.js';
import { belowRecommendedCost, setPasswordHashCost } from './identity/passwords.js';
import { PasswordGuard } from './identity/password-guard.js';
import { CachedPrincipals } from './identity/principal-cache.js';
import { IdentityService } from './identity/service.js';
import { loadJobKinds } from './jobs/kinds.js';
import type { JobRunnerOptions } from './jobs/options.js';
import { JOB_FINISHED, JOB_PROGRESS, jobEventSchema } from './jobs/schema.js';
import { JobService } from './jobs/service.js';
import { openFileStore } from './files/index.js';
import type { Kernel } from './kernel-services.js';
import { requestIds } from './ids.js';
import { REDACT_PATHS, requestLogger } from './logger.js';
import { kernelMigrations } from './meta/kernel-migrations.js';
import { runMigrations } from './meta/migrate.js';
import { finishRename, readPlacement, type PlacementRecord } from './meta/placement-file.js';
import { recordInstance } from './meta/previous-life.js';
import { MetaRelocator } from './meta/relocate.js';
import { openMetaStore, type MetaStore } from './meta/store.js';
import { SandboxHost } from './sandbox/host.js';
import { generateOpenApi, openApiInfo } from './openapi/generate.js';
import { installDocsHost } from './openapi/docs-host.js';
import type { PluginDefinition } from './plugin/manifest.js';
import type { ServiceRef } from './plugin/service-ref.js';
import { buildRouteTree } from './plugin/route-tree.js';
import { IdleCollector } from './memory/idle-collector.js';
import { RowWriteHooks } from './write-hooks.js';
import { ServingState } from './serving.js';
import { SettingsStore } from './settings.js';
import { VERSION } from './version.js';

export interface AppOptions {
  config: Config;
  plugins: readonly PluginDefinition[];
  /** Where the built dashboard lives; defaults to dashboard/dist. */
  dashboardDir?: string;
  now?: () => number;
  /** Log to stdout as JSON (default) or not at all. */
  logger?: boolean;
  /** Where JSON log lines go instead of stdout (tests read them). */
  logStream?: NodeJS.WritableStream;
  /** Realtime heartbeat (25 s by default); tests shorten it. */
  heartbeatMs?: number;
  /** Job workers, poll, lease and backoff times (kernel/jobs/options.ts); tests shorten them. */
  jobs?: JobRunnerOptions;
}

export interface App {
  http: FastifyInstance;
  kernel: Kernel;
  openapi(): Record<string, unknown>;
  listen(): Promise<string>;
  /**
   * The graceful stop of SIGTERM/SIGINT (decisions K43): readiness turns not-ready, requests in
   * flight finish within `config.shutdownGraceMs` while new ones are refused, jobs are handed
   * back, then everything closes.
   */
  shutdown(): Promise<void>;
  /** Closes at once, cutting open connections (tests, a failed start). */
  close(): Promise<void>;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_DIST = projectPath('dashboard', 'dist');

/**
 * Checks every manifest and route before anything is opened (the server refuses to start on a
 * broken contract), then opens the meta store, migrates, and loads the plugins in dependency
 * order through fastify's avvio.
 */
export async function createApp(opts: AppOptions): Promise<App> {
  const { config } = opts;
  const now = opts.now ?? Date.now;
  const { plugins, catalog, routes } = buildRouteTree(opts.plugins);

  const idle = new IdleCollector();
  const nextRequestId = requestIds();
  const hosts = new HostRoutes();
  const logs = opts.logger !== false && config.logLevel !== 'silent';
  const http = Fastify({
    logger: logs
      ? { level: config.logLevel, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, ...(opts.logStream ? { stream: opts.logStream } : {}) }
      : false,
    ...(logs ? { childLoggerFactory: requestLogger } : {}),
    genReqId: () => (idle.requests++, nextRequestId()),
    requestIdHeader: false,
    // fastify accepts a hop count too; its types only list the other forms.
    trustProxy: config.trustProxy as boolean | string[],
    bodyLimit: DEFAULT_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true },
    forceCloseConnections: true,
    http: serverOptions(config.http),
    requestTimeout: config.http.requestTimeoutMs,
    clientErrorHandler,
    // Before routing, so a mapped host (D28) reaches only what its owner serves there.
    rewriteUrl: (req) => hosts.rewrite(req),
    schemaController: { compilersFactory: schemaCompilersOnFirstUse },
  });
  capConnections(http.server, config.http);
  const drain = new HttpDrain(http.server);
  const serving = new ServingState(now);
  // JSON is the only request body the API reads; anything else answers 415.
  http.removeContentTypeParser(['text/plain']);
  // An empty JSON body (fetch with a JSON content type and no body) means "no body", which
  // routes that take none accept; the default parser (prototype-poisoning safe) reads the rest.
  const jsonParser = http.getDefaultJsonParser('error', 'error');
  http.removeContentTypeParser('application/json');
  http.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    jsonParser(req, String(body), done);
  });
  const log = http.log;
  setPasswordHashCost(config.passwordHash);
  if (belowRecommendedCost(config.passwordHash)) {
    log.warn(
      { passwordHash: config.passwordHash },
      'SVC_PASSWORD_HASH is below OWASP’s minimum for argon2id (m=19456,t=2): new password hashes are cheaper to crack',
    );
  }
  const bus = new EventBus(log, now, opts.heartbeatMs);
  bus.declare('kernel', NOTIFICATION_CREATED, { schema: notificationSchema, permission: SIGNED_IN, description: 'A notification for the receiving user.' });
  // The bus filters by one permission per kind, so job events go to the job's creator only (decisions J1).
  bus.declare('kernel', JOB_PROGRESS, {
    schema: jobEventSchema,
    permission: SIGNED_IN,
    description: 'A job you created started, progressed or was queued again for a retry.',
  });
  bus.declare('kernel', JOB_FINISHED, { schema: jobEventSchema, permission: SIGNED_IN, description: 'A job you created succeeded, failed or was cancelled.' });
  for (const p of plugins) for (const [kind, decl] of Object.entries(p.events ?? {})) bus.declare(p.name, kind, decl);

  const instanceId = randomUUID();
  let meta: MetaStore | null = null;
  let bridge: EventBridge | null = null;
  const migrationSets = [{ plugin: 'kernel', migrations: kernelMigrations }, ...plugins.map((p) => ({ plugin: p.name, migrations: p.migrations ?? [] }))];
  // Without SVC_META_URL, a relocation's record says where the store is (decisions MR3).
  let placed: PlacementRecord | null = null;
  try {
    placed = config.metaUrl ? null : readPlacement(config.dataDir, config.secret);
    if (placed?.rename) finishRename(config.dataDir, config.secret, placed);
  } catch (err) {
    await http.close().catch(() => undefined);
    throw err;
  }
  const metaUrl = config.metaUrl ?? placed?.url ?? null;
  try {
    meta = openMetaStore({ url: metaUrl, dataDir: config.dataDir, log });
    await runMigrations(meta, migrationSets, now);
    if (meta.dialect === 'postgres' && metaUrl) {
      bridge = await startPgBridge({ url: metaUrl, db: meta.db, bus, instanceId, log });
    }
  } catch (err) {
    await meta?.close().catch(() => undefined);
    await http.close().catch(() => undefined);
    throw err;
  }
  const store = meta;
  if (bridge) bus.attachBridge(bridge);
  store.writes.storage = { full: () => serving.sawStorageFull(), inserted: () => serving.inserted() };

  const provided = new Map<string, unknown>();
  /** Audience name → its gate, built once its provider is set up (before any plugin requiring it mounts routes). */
  const gates = new Map<string, AudienceGate<unknown, unknown>>();
  const views = new Map<string, Kernel>();
  const jobs = new JobService({
    db: store.db,
    dialect: () => store.dialect,
    kinds: loadJobKinds(plugins),
    bus,
    log,
    now,
    owner: instanceId,
    options: opts.jobs,
    // A handler works with its own plugin's view, built once the plugin is known.
    kernelFor: (name) => {
      let view = views.get(name);
      if (!view) views.set(name, (view = kernelFor(plugins.find((p) => p.name === name) ?? null)));
      return view;
    },
  });
  const files = openFileStore(config, store, now, log);
  const settings = new SettingsStore(store.db, now);
  const boxes = new Map<string, SecretBox>();
  const secrets = (purpose: string) => {
    let box = boxes.get(purpose);
    if (!box) boxes.set(purpose, (box = new SecretBox(config.secret, purpose)));
    return box;
  };
  const signers = new Map<string, TokenSigner>();
  const signer = (purpose: string) => {
    let s = signers.get(purpose);
    if (!s) signers.set(purpose, (s = new TokenSigner(config.secret, purpose)));
    return s;
  };
  const identity = new IdentityService(store.db, catalog, now);
  const principals = new CachedPrincipals(identity, store.writes, now, (err) =>
    log.warn({ err: { message: (err as Error).message } }, 'could not write when sessions and keys were last used'),
  );
  const relocation = new MetaRelocator({
    store,
    dataDir: config.dataDir,
    secret: config.secret,
    log,
    instanceId,
    previousLife: recordInstance(config.dataDir, instanceId),
    now,
    urlFromEnv: config.metaUrl !== null,
    migrations: () => migrationSets,
    previous: placed?.previous ?? null,
    otherInstanceSeenAt: () => bus.otherInstanceSeenAt,
    bridgeTo: async (url, dialect) => {
      await bus.replaceBridge(dialect === 'postgres' && url ? await startPgBridge({ url, db: store.db, bus, instanceId, log }) : null);
    },
    dropCaches: () => principals.clear(),
  });
  // No child process until an add-on's code first runs.
  const sandbox = new SandboxHost({ logger: log, now });
  const base = {
    config,
    log,
    meta: store,
    relocation,
    db: store.db,
    events: bus,
    identity,
    principals,
    rowWrites: new RowWriteHooks(),
    passwordGuard: new PasswordGuard(now),
    permissions: catalog,
    settings,
    audit: new AuditLog(store.db, now),
    mailer: new Mailer(settings, secrets('smtp'), log),
    notifications: new NotificationService(store.db, bus, now),
    jobs,
    schedules: jobs.schedules,
    files,
    sandbox,
    hosts,
    secrets,
    signer,
    version: VERSION,
    instanceId,
    startedAt: now(),
    serving,
    now,
    routes: () => routes,
  };
  const kernelFor = (p: PluginDefinition | null): Kernel => ({
    ...base,
    plugin<T>(ref: ServiceRef<T>): T {
      const name = ref.plugin;
      if (!p || (name !== p.name && !(p.requires ?? []).includes(name)))
        throw new Error(`plugin ${p?.name ?? 'kernel'} uses plugin ${name} without requiring it`);
      return provided.get(name) as T;
    },
  });
  const kernel = kernelFor(null);

  let openapiDoc: Record<string, unknown> | null = null;
  const openapi = () => (openapiDoc ??= generateOpenApi(routes, openApiInfo()));

  installErrorHandler(http, store.helpers, serving, sandbox.failureLog);
  installSecurityHeaders(http);
  await installCompression(http);
  // Cookies are read where they are needed (authenticate.ts) and written by the routes that set them: no hook on every answer.
  const cookies = installCookies(http, config.secret);
  http.decorate('signCookie', (value: string) => cookies.sign(value));
  declareAudienceCaller(http);
  // CORS only when a split deployment lists origins (D2); static options are normalised once.
  if (config.corsOrigins.length > 0) {
    const allowed = new Set(config.corsOrigins);
    await http.register(cors, {
      hook: 'onRequest',
      origin: (origin, cb) => cb(null, origin !== undefined && allowed.has(origin)),
      credentials: true,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      maxAge: 600,
    });
  }
  const closeWebSockets = await installWebSocket(http, kernel);
  await installDocsHost(http, openapi);
  await installSpaHost(http, opts.dashboardDir ?? DEFAULT_DIST);

  // Each plugin is a fastify plugin named after it: avvio loads them in the order computed
  // above, and fastify-plugin's own dependency check guards the same order a second time.
  for (const p of plugins) {
    const view = kernelFor(p);
    http.register(
      fp(
        async (instance) => {
          if (p.setup) provided.set(p.name, await p.setup(view));
          for (const a of p.audiences ?? []) gates.set(a.audience.name, a.gate(provided.get(p.name), view));
          if (p.http) await p.http(instance, view, provided.get(p.name));
          for (const r of p.routes ?? []) {
            const gate = r.audience ? gates.get(r.audience.name) : undefined;
            if (r.multipart) await mountMultipartRoute(instance, p.name, r, view, gate);
            else mountRoute(instance, p.name, r, view, gate);
          }
          if (p.close) instance.addHook('onClose', async () => p.close!());
        },
        { name: p.name, dependencies: p.requires ?? [], fastify: '5.x' },
      ),
    );
  }
  // Before any plugin's close: running handlers still have every service while they stop.
  http.addHook('preClose', async () => {
    await jobs.stop();
  });
  let fileSweep: NodeJS.Timeout | null = null;
  http.addHook('onClose', async () => {
    if (fileSweep) clearInterval(fileSweep);
    await sandbox.close();
    await bus.close();
    await principals.close().catch(() => undefined);
    await store.close();
  });
  try {
    await http.ready();
  } catch (err) {
    await http.close().catch(() => undefined);
    throw err;
  }
  jobs.start();
  // Expired files and what a dead process left half-written; every replica may run it (fenced deletes).
  const sweepFiles = () => void files.sweep(now()).catch((err: Error) => log.warn({ err: { message: err.message } }, 'file store sweep failed'));
  fileSweep = setInterval(sweepFiles, FILE_SWEEP_EVERY_MS).unref();
  return {
    http,
    kernel,
    openapi,
    async listen() {
      const address = await http.listen({ host: config.host, port: config.port });
      idle.start();
      return address;
    },
    async shutdown() {
      serving.draining = true;
      // Handlers are aborted and their jobs handed back while requests finish.
      const jobsStopped = jobs.stop();
      closeWebSockets();
      const open = drain.begin({
        graceMs: config.shutdownGraceMs,
        passThrough: (req) => isProbe(req.url),
        onCut: (count) => log.warn({ connections: count, graceMs: config.shutdownGraceMs }, 'grace period over: open connections cut'),
      });
      await Promise.all([open, jobsStopped]);
      idle.stop();
      await http.close();
    },
    async close() {
      idle.stop();
      await http.close();
    },
  };
}

const PROBES = [`${API_PREFIX}/readyz`, `${API_PREFIX}/healthz`];

/** Readiness and liveness keep answering during a drain: a load balancer must see not-ready, not a refusal. */
function isProbe(url: string | undefined): boolean {
  if (!url) return false;
  return PROBES.some((p) => url.startsWith(p) && (url.length === p.length || url[p.length] === '?' || url[p.length] === '/'));
}

const FILE_SWEEP_EVERY_MS = 10 * 60_000;

export { API_PREFIX };
