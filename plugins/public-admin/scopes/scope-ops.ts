import { AppError, type ErrorIssue } from '../../../kernel/api.js';
import type { Catalog, CatalogEntry } from '../endpoints/catalog.js';
import { definitionPatch, storedPart, type CreateScopeBody, type PatchScopeBody, type StoredDefinition } from '../endpoints/definition.js';
import { generatedDefinition, offeredMethods, type TableContext } from '../endpoints/generate.js';
import { refKey } from '../endpoints/scopes-store.js';
import { toScope, type PublicScope } from './schemas.js';
import type { PublicAdminService } from '../service.js';
import { validateDefinition } from '../endpoints/validate.js';

const uniq = <T>(xs: T[]) => [...new Set(xs)];

/** The endpoint as the routes answer it, with the methods its table could offer it. */
export function scopeOf(catalog: Catalog, entry: CatalogEntry): PublicScope {
  const ctx = catalog.context(entry.def.connectionId, entry.def.table);
  const d = entry.def;
  const offered = ctx ? offeredMethods(ctx, { allowCascade: d.allowCascade, filtered: d.filters.length > 0, writable: d.writable }) : [];
  return toScope(entry, offered);
}

/** An app's endpoint is the app's (D27: its key can never be widened through it). */
function appOwned(entry: CatalogEntry): void {
  if (entry.def.addonKey) throw new AppError('PUBLIC_ENDPOINT_APP_OWNED', { params: { addonKey: entry.def.addonKey } });
}

/** A stored scope by id, else any endpoint by ref (a virtual endpoint has no id), else 404. */
export function findEntry(catalog: Catalog, idOrRef: string): CatalogEntry {
  const entry =
    catalog.entries.find((e) => e.def.id === idOrRef) ?? catalog.byRef.get(idOrRef) ?? catalog.entries.find((e) => refKey(e.def.ref) === refKey(idOrRef));
  if (!entry) throw new AppError('NOT_FOUND', { message: `No public endpoint ${idOrRef}.` });
  return entry;
}

/**
 * The patch over the base. Narrowing `columns` narrows the lists that must stay within them
 * (writable, filterable, searchable, orderable) unless the patch sets those too, so removing a
 * column from an endpoint is one field, not five.
 */
export function merge(base: StoredDefinition, patch: ReturnType<typeof definitionPatch>): StoredDefinition {
  const d = { ...base, ...patch };
  if (patch.columns) {
    const kept = new Set(patch.columns);
    for (const k of ['writable', 'filterable', 'searchable', 'orderable'] as const) if (!patch[k]) d[k] = d[k].filter((c) => kept.has(c));
  }
  return {
    ...d,
    methods: uniq(d.methods),
    columns: uniq(d.columns),
    writable: uniq(d.writable),
    filterable: uniq(d.filterable),
    searchable: uniq(d.searchable),
    orderable: uniq(d.orderable),
    identity: uniq(d.identity),
    sensitive: uniq(d.sensitive),
  };
}

export function check(ctx: TableContext, def: StoredDefinition, extra: ErrorIssue[] = []): void {
  const issues = [...extra, ...validateDefinition(ctx, def)];
  if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
}

function refTaken(catalog: Catalog, ref: string, except: CatalogEntry | null): void {
  const clash = catalog.entries.find((e) => e !== except && refKey(e.def.ref) === refKey(ref));
  if (clash) throw new AppError('CONFLICT', { message: `The ref ${ref} is taken by another endpoint.`, params: { reason: 'ref-taken', ref } });
}

async function servedAfter(service: PublicAdminService, pick: (c: Catalog) => CatalogEntry | undefined): Promise<PublicScope> {
  service.invalidate();
  const catalog = await service.catalog();
  const entry = pick(catalog);
  if (!entry) throw new Error('stored endpoint missing from the catalog just built');
  return scopeOf(catalog, entry);
}

/**
 * POST /public-scopes. With the generated ref of a table whose generated endpoint is virtual,
 * this stores that endpoint with the edits; with another ref it adds an extra endpoint over the
 * table, starting from the generated form. Keys the body leaves out keep the generated values.
 */
export async function createScope(service: PublicAdminService, body: CreateScopeBody): Promise<PublicScope> {
  const catalog = await service.catalog();
  const ctx = catalog.context(body.connectionId, body.table);
  if (!ctx) {
    const known = catalog.entries.some((e) => e.def.connectionId === body.connectionId);
    throw new AppError('VALIDATION_FAILED', {
      issues: [
        known
          ? { path: 'body.table', code: 'unknown_table', message: `The connection has no table ${body.table} (introspect it again if it is new).` }
          : { path: 'body.connectionId', code: 'unknown_connection', message: 'No introspected connection with this id.' },
      ],
    });
  }
  const generated = catalog.entries.find((e) => e.def.generated && e.def.connectionId === body.connectionId && e.def.table === body.table);
  const asGenerated = generated !== undefined && generated.def.virtual && generated.def.ref === body.ref;
  refTaken(catalog, body.ref, asGenerated ? generated : null);
  const def = merge(storedPart(generatedDefinition(ctx, body.ref)), definitionPatch(body));
  check(ctx, def);
  const row = await insertOrConflict(service, {
    ref: body.ref,
    connectionId: body.connectionId,
    table: body.table,
    generated: asGenerated,
    edited: true,
    definition: def,
  });
  await service.announce('scopes', row.id);
  return servedAfter(service, (c) => c.entries.find((e) => e.def.id === row.id));
}

async function insertOrConflict(service: PublicAdminService, input: Parameters<PublicAdminService['scopes']['insert']>[0]) {
  try {
    return await service.scopes.insert(input);
  } catch (err) {
    // The unique indexes lost a race with a simultaneous write of the same ref or table.
    if (await service.scopes.refTaken(input.ref)) throw new AppError('CONFLICT', { params: { reason: 'ref-taken', ref: input.ref } });
    if (input.generated && (await service.scopes.byGeneratedKey(input.connectionId, input.table)))
      throw new AppError('CONFLICT', { params: { reason: 'already-stored' } });
    throw err;
  }
}

/** PATCH /public-scopes/{id}: edits a stored endpoint, or stores a virtual one with the edits. */
export async function patchScope(service: PublicAdminService, idOrRef: string, body: PatchScopeBody): Promise<{ before: PublicScope; after: PublicScope }> {
  const catalog = await service.catalog();
  const entry = findEntry(catalog, idOrRef);
  appOwned(entry);
  const before = scopeOf(catalog, entry);
  const ctx = catalog.context(entry.def.connectionId, entry.def.table);
  if (!ctx) throw new AppError('CONFLICT', { message: 'The table behind this endpoint is gone; delete the endpoint.', params: { reason: 'table-missing' } });
  const ref = body.ref ?? entry.def.ref;
  if (ref !== entry.def.ref) refTaken(catalog, ref, entry);
  const def = merge(entry.editable, definitionPatch(body));
  const extra: ErrorIssue[] = [];
  if (def.serviceRole && entry.def.id && (await service.scopes.grantingKeys(entry.def.id)).some((k) => k.kind === 'browser'))
    extra.push({
      path: 'body.serviceRole',
      code: 'granted_to_browser_key',
      message: 'A browser key grants this endpoint; only server keys may be granted a service-role endpoint.',
    });
  check(ctx, def, extra);
  let id = entry.def.id;
  if (id === null) {
    id = (
      await insertOrConflict(service, { ref, connectionId: entry.def.connectionId, table: entry.def.table, generated: true, edited: true, definition: def })
    ).id;
  } else {
    await service.scopes.update(id, { ref, edited: true, definition: def });
  }
  await service.announce('scopes', id);
  const after = await servedAfter(service, (c) => c.entries.find((e) => e.def.id === id));
  return { before, after };
}

/**
 * DELETE /public-scopes/{id}. A table's generated endpoint returns to its generated form: back
 * to virtual, or, while a key grants it, stored in the generated form (the key keeps working).
 * An extra endpoint is removed (409 while a live key grants it), answering null.
 */
export async function deleteScope(service: PublicAdminService, idOrRef: string): Promise<{ before: PublicScope; after: PublicScope | null }> {
  const catalog = await service.catalog();
  const entry = findEntry(catalog, idOrRef);
  appOwned(entry);
  const before = scopeOf(catalog, entry);
  const { id, connectionId, table } = entry.def;
  if (id === null) return { before, after: before };
  const granted = await service.scopes.grantingKeys(id);
  const ctx = catalog.context(connectionId, table);
  if (!entry.def.generated || !ctx) {
    if (granted.length)
      throw new AppError('CONFLICT', {
        message: 'Live keys grant this endpoint; revoke them first.',
        params: { reason: 'scope-in-use', keys: granted.length },
      });
    await service.scopes.remove(id);
    await service.announce('scopes', id);
    service.invalidate();
    return { before, after: null };
  }
  if (granted.length) await service.scopes.update(id, { ref: entry.def.ref, edited: false, definition: storedPart(generatedDefinition(ctx, entry.def.ref)) });
  else await service.scopes.remove(id);
  await service.announce('scopes', id);
  const after = await servedAfter(service, (c) => c.entries.find((e) => e.def.generated && e.def.connectionId === connectionId && e.def.table === table));
  return { before, after };
}

/**
 * Stores the virtual endpoints a key is about to be granted ("stays virtual until a key grants
 * it"): the generated form as of now, so a column added to the table later stays out.
 */
export async function storeForGrant(service: PublicAdminService, entry: CatalogEntry): Promise<string> {
  if (entry.def.id !== null) return entry.def.id;
  const row = await insertOrConflict(service, {
    ref: entry.def.ref,
    connectionId: entry.def.connectionId,
    table: entry.def.table,
    generated: true,
    edited: false,
    definition: storedPart(entry.def),
  });
  return row.id;
}
