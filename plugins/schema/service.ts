import { defineServiceRef, AppError, type Kernel, type MetaDb, MetaReadCache } from '../../kernel/api.js';
import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../engine/schema/model.js';
import { connectionsRef, type SourceDialect } from '../connections/provides.js';
import { pagesRef } from '../pages/provides.js';
import { diffModels, summarizeDiff, type DiffSummary, type SchemaDiff } from './diff.js';
import { applyOverrides, type EffectiveTable } from './effective.js';
import { planPages, type PlannedPage } from './generate.js';
import { normalizeOverrides, overrideProblems, type Overrides, type SchemaProblem } from './overrides.js';
import { OverridesStore } from './overrides-store.js';
import type { EffectiveSchema, SchemaProvides } from './provides.js';
import type { GeneratedPage } from './schemas.js';
import { SnapshotStore, type Snapshot } from './snapshots.js';
import { schemaDb } from './tables.js';

// The operator's tables are not known at compile time.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Introspector = (db: Kysely<any>, dialect: SourceDialect) => Promise<{ model: SchemaModel; queries: number }>;

export interface OverridesView {
  overrides: Overrides;
  problems: SchemaProblem[];
  snapshotId: string | null;
  updatedAt: number | null;
}

export interface GenerateResult {
  dryRun: boolean;
  snapshotId: string;
  created: GeneratedPage[];
  existing: GeneratedPage[];
  skipped: Array<{ table: string; kind: 'list' | 'detail'; reason: 'no-primary-key' }>;
}

/** Shared between callers through the cache: a caller that changed it would change it for everyone. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Effective schemas by connection, for the data routes that ask on every request. */
const EFFECTIVE_CACHE_SIZE = 32;

/** Snapshots, diffs, overrides and generation for one instance; also what other plugins reach as `SchemaProvides`. */
export class SchemaService implements SchemaProvides {
  readonly snapshots: SnapshotStore;
  readonly overridesStore: OverridesStore;
  private readonly cache = new Map<string, { key: string; value: EffectiveSchema }>();
  private readonly currents: MetaReadCache<{ snapshot: Snapshot; value: EffectiveSchema }>;

  constructor(
    private readonly kernel: Kernel,
    private readonly introspector: Introspector,
  ) {
    const db = schemaDb(kernel.db);
    const now = () => kernel.now();
    this.snapshots = new SnapshotStore(db, now);
    this.overridesStore = new OverridesStore(db, now);
    this.currents = new MetaReadCache(kernel.meta.writes, ['schema_heads', 'schema_snapshots', 'schema_overrides', 'connections'], {
      max: EFFECTIVE_CACHE_SIZE,
    });
  }

  private get connections() {
    return this.kernel.plugin(connectionsRef);
  }

  private get pages() {
    return this.kernel.plugin(pagesRef);
  }

  /** The connection is being deleted (ConnectionsProvides.onRemove): its snapshots, overrides and pages go with it, in `trx`. */
  async removeConnection(connectionId: string, trx: MetaDb): Promise<Record<string, number>> {
    const db = schemaDb(trx);
    const count = (res: { numDeletedRows: bigint }) => Number(res.numDeletedRows);
    const schemaSnapshots = count(await db.deleteFrom('schema_snapshots').where('connection_id', '=', connectionId).executeTakeFirst());
    await db.deleteFrom('schema_heads').where('connection_id', '=', connectionId).execute();
    const schemaOverrides = count(await db.deleteFrom('schema_overrides').where('connection_id', '=', connectionId).executeTakeFirst());
    const pages = await this.pages.removeConnection(connectionId, trx);
    this.cache.delete(connectionId);
    return { schemaSnapshots, schemaOverrides, pages };
  }

  /**
   * Reads the connection's database and stores a snapshot when its structure changed. Runs in
   * the request for now; very large schemas should move to a job once the jobs runner exists.
   */
  async introspect(connectionId: string): Promise<{ snapshot: Snapshot; created: boolean; diff?: DiffSummary }> {
    await this.connections.info(connectionId);
    const started = performance.now();
    const { model, queries } = await this.connections.withSource(connectionId, (db, info) => this.introspector(db, info.dialect));
    const durationMs = performance.now() - started;
    const { snapshot, created, previous } = await this.snapshots.record(connectionId, model, { queries, durationMs });
    if (!created) return { snapshot, created };
    const before = previous ? await this.snapshots.model(connectionId, previous.id) : null;
    const after = (await this.snapshots.model(connectionId, snapshot.id))!;
    await this.kernel.events.publish('schema.changed', { connectionId, snapshotId: snapshot.id, previousSnapshotId: previous?.id ?? null });
    return { snapshot, created, diff: summarizeDiff(diffModels(before, after)) };
  }

  /** Tables in the latest snapshot; 0 before the first introspection. */
  async latestTableCount(connectionId: string): Promise<number> {
    const head = await this.snapshots.head(connectionId);
    if (!head) return 0;
    return (await this.snapshots.summary(connectionId, head.snapshotId))?.tableCount ?? 0;
  }

  private async latest(connectionId: string): Promise<{ snapshot: Snapshot; model: SchemaModel }> {
    const head = await this.snapshots.head(connectionId);
    const snapshot = head ? await this.snapshots.summary(connectionId, head.snapshotId) : null;
    const model = snapshot ? await this.snapshots.model(connectionId, snapshot.id) : null;
    if (!snapshot || !model) throw new AppError('SCHEMA_NOT_INTROSPECTED', { params: { connectionId } });
    return { snapshot, model };
  }

  /** The result is shared between callers and frozen. */
  async effective(connectionId: string): Promise<EffectiveSchema> {
    return (await this.current(connectionId)).value;
  }

  effectiveNow(connectionId: string): EffectiveSchema | undefined {
    return this.currents.peek(connectionId)?.value;
  }

  /**
   * The effective schema and the snapshot it comes from. Every /data request asks: the answer is
   * kept until the snapshots, heads, overrides or connections are written (5 s for other replicas).
   */
  async current(connectionId: string): Promise<{ snapshot: Snapshot; value: EffectiveSchema }> {
    return this.currents.get(connectionId, () => this.readCurrent(connectionId));
  }

  private async readCurrent(connectionId: string): Promise<{ snapshot: Snapshot; value: EffectiveSchema }> {
    await this.connections.info(connectionId);
    const { snapshot, model } = await this.latest(connectionId);
    const stored = await this.overridesStore.get(connectionId);
    const key = `${snapshot.id}:${stored.version}`;
    const hit = this.cache.get(connectionId);
    if (hit?.key === key) return { snapshot, value: hit.value };
    const value: EffectiveSchema = {
      connectionId,
      snapshotId: snapshot.id,
      hash: snapshot.hash,
      model: applyOverrides(model, stored.overrides),
      overrides: stored.overrides,
      problems: overrideProblems(model, stored.overrides),
    };
    deepFreeze(value);
    this.cache.delete(connectionId);
    this.cache.set(connectionId, { key, value });
    while (this.cache.size > EFFECTIVE_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    return { snapshot, value };
  }

  async table(connectionId: string, ref: string): Promise<EffectiveTable | null> {
    return (await this.effective(connectionId)).model.tables.find((t) => t.ref === ref) ?? null;
  }

  async listSnapshots(connectionId: string, limit: number, before?: string) {
    await this.connections.info(connectionId);
    return this.snapshots.list(connectionId, limit, before);
  }

  async snapshot(connectionId: string, snapshotId: string): Promise<{ snapshot: Snapshot; model: SchemaModel }> {
    await this.connections.info(connectionId);
    const snapshot = await this.snapshots.summary(connectionId, snapshotId);
    const model = snapshot ? await this.snapshots.model(connectionId, snapshotId) : null;
    if (!snapshot || !model) throw new AppError('NOT_FOUND', { message: 'No such snapshot of this connection.', params: { snapshotId } });
    return { snapshot, model };
  }

  /** `to` defaults to the latest snapshot, `from` to the one before `to` (none before the first: all added). */
  async diff(connectionId: string, fromId?: string, toId?: string): Promise<{ from: Snapshot | null; to: Snapshot; diff: SchemaDiff }> {
    await this.connections.info(connectionId);
    const to = toId ? await this.snapshot(connectionId, toId) : await this.latest(connectionId);
    const previousId = fromId ?? to.snapshot.previousSnapshotId;
    const from = previousId ? await this.snapshot(connectionId, previousId) : null;
    return { from: from?.snapshot ?? null, to: to.snapshot, diff: diffModels(from?.model ?? null, to.model) };
  }

  async overrides(connectionId: string): Promise<OverridesView> {
    await this.connections.info(connectionId);
    const stored = await this.overridesStore.get(connectionId);
    const head = await this.snapshots.head(connectionId);
    const model = head ? await this.snapshots.model(connectionId, head.snapshotId) : null;
    return {
      overrides: stored.overrides,
      problems: model ? overrideProblems(model, stored.overrides) : [],
      snapshotId: head?.snapshotId ?? null,
      updatedAt: stored.updatedAt,
    };
  }

  async replaceOverrides(connectionId: string, input: Overrides): Promise<{ before: Overrides; after: OverridesView }> {
    const before = (await this.overrides(connectionId)).overrides;
    await this.overridesStore.put(connectionId, normalizeOverrides(input));
    return { before, after: await this.overrides(connectionId) };
  }

  /** Refs in `tables` the latest snapshot does not have. */
  async unknownTables(connectionId: string, tables: readonly string[]): Promise<string[]> {
    const refs = new Set((await this.effective(connectionId)).model.tables.map((t) => t.ref));
    return tables.filter((t) => !refs.has(t));
  }

  /** Default pages for the connection; a page generated before (by key) is left as it is. */
  async generate(connectionId: string, opts: { tables?: string[] | undefined; dryRun: boolean }): Promise<GenerateResult> {
    const info = await this.connections.info(connectionId);
    const schema = await this.effective(connectionId);
    const plan = planPages({ connectionId, connectionName: info.name, model: schema.model, ...(opts.tables ? { tables: opts.tables } : {}) });
    const result: GenerateResult = { dryRun: opts.dryRun, snapshotId: schema.snapshotId, created: [], existing: [], skipped: plan.skipped };
    for (const planned of plan.pages) {
      const { page, created } = await this.ensurePage(planned, opts.dryRun);
      (created ? result.created : result.existing).push(page);
    }
    return result;
  }

  private async ensurePage(planned: PlannedPage, dryRun: boolean): Promise<{ page: GeneratedPage; created: boolean }> {
    const ref = (p: { id: string | null; slug: string; title: string }): GeneratedPage => ({
      id: p.id,
      generatedKey: planned.generatedKey,
      kind: planned.kind,
      table: planned.table,
      slug: p.slug,
      title: p.title,
    });
    for (let attempt = 0; ; attempt++) {
      const existing = await this.pages.findByGeneratedKey(planned.generatedKey);
      if (existing) return { page: ref(existing), created: false };
      const slug = await this.pages.freeSlug(planned.slugBase);
      if (dryRun) return { page: ref({ id: null, slug, title: planned.title }), created: true };
      try {
        const page = await this.pages.create({
          slug,
          title: planned.title,
          kind: planned.kind,
          connectionId: planned.connectionId,
          table: planned.table,
          config: planned.config,
          generatedKey: planned.generatedKey,
        });
        return { page: ref(page), created: true };
      } catch (err) {
        // A concurrent generation took the key (answered as existing next time round) or the slug (pick another).
        if (!(err instanceof AppError && err.code === 'CONFLICT') || attempt >= 3) throw err;
      }
    }
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const schemaServiceRef = defineServiceRef<SchemaService>('schema');
