import { sql } from 'kysely';
import { AppError, type MetaDb, newId } from '../../kernel/api.js';
import type { NewPage, Page, PageKind, PagesProvides } from './provides.js';
import { pagesDb, type PagesDb, type PagesTables } from './tables.js';

type Row = PagesTables['pages'];

/** LIKE with '!' as the escape character, which needs no quoting on any of the three dialects. */
const likePrefix = (prefix: string) => prefix.replace(/[!%_]/g, (c) => `!${c}`) + '%';

function toPage(row: Row): Page {
  let config: Record<string, unknown> = {};
  try {
    config = JSON.parse(row.config) as Record<string, unknown>;
  } catch {
    // A config written by hand into the store that is not JSON reads as empty rather than failing every list.
  }
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    kind: row.kind as PageKind,
    connectionId: row.connection_id,
    table: row.table_name,
    config,
    position: Number(row.position),
    generatedKey: row.generated_key,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The minimal page store generation needs; the pages issue adds listing, editing and routes. */
export class PagesStore implements PagesProvides {
  constructor(
    private readonly db: PagesDb,
    private readonly now: () => number,
  ) {}

  async removeConnection(connectionId: string, trx: MetaDb): Promise<number> {
    const res = await pagesDb(trx).deleteFrom('pages').where('connection_id', '=', connectionId).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  async find(id: string): Promise<Page | null> {
    const row = await this.db.selectFrom('pages').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toPage(row) : null;
  }

  async findByGeneratedKey(key: string): Promise<Page | null> {
    const row = await this.db.selectFrom('pages').selectAll().where('generated_key', '=', key).executeTakeFirst();
    return row ? toPage(row) : null;
  }

  async freeSlug(base: string): Promise<string> {
    const stem = base.slice(0, 190);
    const taken = new Set(
      (
        await this.db
          .selectFrom('pages')
          .select('slug')
          .where((eb) => eb.or([eb('slug', '=', stem), sql<boolean>`${eb.ref('slug')} like ${likePrefix(stem + '-')} escape '!'`]))
          .execute()
      ).map((r) => r.slug),
    );
    if (!taken.has(stem)) return stem;
    for (let n = 2; ; n++) if (!taken.has(`${stem}-${n}`)) return `${stem}-${n}`;
  }

  private async conflict(input: NewPage): Promise<AppError | null> {
    if (input.generatedKey && (await this.findByGeneratedKey(input.generatedKey)))
      return new AppError('CONFLICT', {
        message: 'A generated page with this key already exists.',
        params: { reason: 'generated-key-taken', generatedKey: input.generatedKey },
      });
    if (await this.db.selectFrom('pages').select('id').where('slug', '=', input.slug).executeTakeFirst())
      return new AppError('CONFLICT', { message: `A page with the slug ${input.slug} already exists.`, params: { reason: 'slug-taken', slug: input.slug } });
    return null;
  }

  async create(input: NewPage): Promise<Page> {
    const known = await this.conflict(input);
    if (known) throw known;
    const now = this.now();
    let position = input.position;
    if (position === undefined) {
      const last = await this.db
        .selectFrom('pages')
        .select((eb) => eb.fn.max('position').as('p'))
        .executeTakeFirst();
      position = last?.p === null || last?.p === undefined ? 0 : Number(last.p) + 1;
    }
    const row: Row = {
      id: newId(now),
      slug: input.slug,
      title: input.title,
      kind: input.kind,
      connection_id: input.connectionId ?? null,
      table_name: input.table ?? null,
      config: JSON.stringify(input.config ?? {}),
      position,
      generated_key: input.generatedKey ?? null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.insertInto('pages').values(row).execute();
    } catch (err) {
      // Lost a race for the slug or the key: answer the conflict, not a 500.
      const raced = await this.conflict(input);
      throw raced ?? err;
    }
    return toPage(row);
  }
}
