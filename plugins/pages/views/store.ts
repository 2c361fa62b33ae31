import { sql } from 'kysely';
import { AppError, newId } from '../../../kernel/api.js';
import type { PagesDb, PagesTables } from '../tables.js';

type Row = PagesTables['page_views'];

/** A shared view of a table page: a named grid query (decisions PG7). */
export interface PageView {
  id: string;
  pageId: string;
  name: string;
  query: Record<string, unknown>;
  isDefault: boolean;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Views a page keeps at most. */
export const VIEWS_PER_PAGE = 100;

function toView(row: Row): PageView {
  let query: Record<string, unknown> = {};
  try {
    query = JSON.parse(row.query) as Record<string, unknown>;
  } catch {
    // A value written by hand that is not JSON reads as the table's plain grid.
  }
  return {
    id: row.id,
    pageId: row.page_id,
    name: row.name,
    query,
    isDefault: Number(row.is_default) === 1,
    createdBy: row.created_by ?? null,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const nameTaken = (name: string) =>
  new AppError('CONFLICT', { message: `This page already has a view named ${name}.`, params: { reason: 'name-taken', name } });

export interface NewView {
  name: string;
  query: Record<string, unknown>;
  isDefault: boolean;
  createdBy: string | null;
}

export class ViewStore {
  constructor(
    private readonly db: PagesDb,
    private readonly now: () => number,
  ) {}

  async list(pageId: string): Promise<PageView[]> {
    return (await this.db.selectFrom('page_views').selectAll().where('page_id', '=', pageId).orderBy('name').orderBy('id').execute()).map(toView);
  }

  async find(pageId: string, id: string): Promise<PageView | null> {
    const row = await this.db.selectFrom('page_views').selectAll().where('page_id', '=', pageId).where('id', '=', id).executeTakeFirst();
    return row ? toView(row) : null;
  }

  async defaultOf(pageId: string): Promise<PageView | null> {
    const row = await this.db.selectFrom('page_views').selectAll().where('page_id', '=', pageId).where('is_default', '=', 1).orderBy('id').executeTakeFirst();
    return row ? toView(row) : null;
  }

  /** Names compare case-insensitively on every meta store (MariaDB's collation would anyway). */
  private async nameUsed(db: PagesDb, pageId: string, name: string, except?: string): Promise<boolean> {
    let q = db
      .selectFrom('page_views')
      .select('id')
      .where('page_id', '=', pageId)
      .where(sql<boolean>`lower(name) = ${name.toLowerCase()}`);
    if (except) q = q.where('id', '<>', except);
    return (await q.executeTakeFirst()) !== undefined;
  }

  /** Why a new view of this name could not be added to the page now (409 `name-taken`, `too-many-views`), or null. */
  async refusal(db: PagesDb, pageId: string, name: string): Promise<AppError | null> {
    if (await this.nameUsed(db, pageId, name)) return nameTaken(name);
    const count = await db
      .selectFrom('page_views')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('page_id', '=', pageId)
      .executeTakeFirst();
    if (Number(count?.n ?? 0) >= VIEWS_PER_PAGE)
      return new AppError('CONFLICT', {
        message: `A page keeps at most ${VIEWS_PER_PAGE} views.`,
        params: { reason: 'too-many-views', max: VIEWS_PER_PAGE },
      });
    return null;
  }

  /** Refusals as create's, outside any transaction (a dry run). */
  async refusalNow(pageId: string, name: string): Promise<AppError | null> {
    return this.refusal(this.db, pageId, name);
  }

  /** 409 `name-taken`; 409 `too-many-views` past VIEWS_PER_PAGE. Setting a default clears the page's other one, in the same transaction. */
  async create(pageId: string, input: NewView): Promise<PageView> {
    const now = this.now();
    const row: Row = {
      id: newId(now),
      page_id: pageId,
      name: input.name,
      query: JSON.stringify(input.query),
      is_default: input.isDefault ? 1 : 0,
      created_by: input.createdBy,
      created_at: now,
      updated_at: now,
    };
    await this.guarded(pageId, input.name, undefined, () =>
      this.db.transaction().execute(async (trx) => {
        const refused = await this.refusal(trx, pageId, input.name);
        if (refused) throw refused;
        if (input.isDefault) await trx.updateTable('page_views').set({ is_default: 0 }).where('page_id', '=', pageId).where('is_default', '=', 1).execute();
        await trx.insertInto('page_views').values(row).execute();
      }),
    );
    return toView(row);
  }

  async update(
    pageId: string,
    id: string,
    changes: { name?: string | undefined; query?: Record<string, unknown> | undefined; isDefault?: boolean | undefined },
  ) {
    const set: Partial<Row> = { updated_at: this.now() };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.query !== undefined) set.query = JSON.stringify(changes.query);
    if (changes.isDefault !== undefined) set.is_default = changes.isDefault ? 1 : 0;
    await this.guarded(pageId, changes.name, id, () =>
      this.db.transaction().execute(async (trx) => {
        if (changes.name !== undefined && (await this.nameUsed(trx, pageId, changes.name, id))) throw nameTaken(changes.name);
        if (changes.isDefault)
          await trx.updateTable('page_views').set({ is_default: 0 }).where('page_id', '=', pageId).where('id', '<>', id).where('is_default', '=', 1).execute();
        await trx.updateTable('page_views').set(set).where('page_id', '=', pageId).where('id', '=', id).execute();
      }),
    );
    return this.find(pageId, id);
  }

  /** `unchangedSince`: only while the view's updatedAt is still that (compare-and-delete). */
  async remove(pageId: string, id: string, unchangedSince?: number): Promise<boolean> {
    let q = this.db.deleteFrom('page_views').where('page_id', '=', pageId).where('id', '=', id);
    if (unchangedSince !== undefined) q = q.where('updated_at', '=', unchangedSince);
    const res = await q.executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Every view of the page, in `db` (the page's delete transaction). */
  async removePage(pageId: string, db: PagesDb): Promise<number> {
    const res = await db.deleteFrom('page_views').where('page_id', '=', pageId).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** Copies every view of `from` onto `to` (a duplicated page), in one transaction. */
  async copy(from: string, to: string, createdBy: string | null): Promise<void> {
    const views = await this.list(from);
    if (!views.length) return;
    const now = this.now();
    await this.db.transaction().execute(async (trx) => {
      for (const v of views)
        await trx
          .insertInto('page_views')
          .values({
            id: newId(now),
            page_id: to,
            name: v.name,
            query: JSON.stringify(v.query),
            is_default: v.isDefault ? 1 : 0,
            created_by: createdBy,
            created_at: now,
            updated_at: now,
          })
          .execute();
    });
  }

  /** A unique-key failure from a race for the name is answered as the 409 it is, not a 500. */
  private async guarded(pageId: string, name: string | undefined, except: string | undefined, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (!(err instanceof AppError) && name !== undefined && (await this.nameUsed(this.db, pageId, name, except))) throw nameTaken(name);
      throw err;
    }
  }
}
