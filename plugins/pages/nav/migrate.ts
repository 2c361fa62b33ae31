import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { appKeyOf, sectionIdOf, titleOf } from './keys.js';

/**
 * Moves the add-ons plugin's placements (`addon_placements`, decisions AO14) into the navigation
 * (decisions PG11): one section per placement section id, titled from the id, after the
 * sections already there; each placement an entry at its order. Safe to run again (MySQL
 * commits the DDL before it, K10): a section or an entry already there is kept as it is.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function moveAddonPlacements(db: Kysely<any>, now: number): Promise<number> {
  // Selecting from a missing table would abort a PostgreSQL transaction: ask the catalogue, in the
  // schema the store uses there.
  const schema =
    db.getExecutor().adapter instanceof PostgresAdapter ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s : undefined;
  const tables = await db.introspection.getTables();
  if (!tables.some((t) => t.name === 'addon_placements' && (schema === undefined || t.schema === schema))) return 0;
  const rows = (await db
    .selectFrom('addon_placements')
    .select(['addon_key', 'surface', 'nav_section', 'nav_order'])
    .orderBy('nav_section')
    .orderBy('nav_order')
    .orderBy('addon_key')
    .orderBy('surface')
    .execute()) as Array<{ addon_key: string; surface: string; nav_section: string; nav_order: number | string }>;
  if (!rows.length) return 0;
  const sections = new Set(((await db.selectFrom('nav_sections').select('id').execute()) as Array<{ id: string }>).map((r) => r.id));
  const top = (await db
    .selectFrom('nav_sections')
    .select((eb) => eb.fn.max('position').as('p'))
    .executeTakeFirst()) as { p: number | string | null } | undefined;
  let position = top?.p === null || top?.p === undefined ? 0 : Number(top.p) + 1;
  const entries = new Set(
    ((await db.selectFrom('nav_entries').select('entry_key').where('app_key', 'is not', null).execute()) as Array<{ entry_key: string }>).map(
      (r) => r.entry_key,
    ),
  );
  let moved = 0;
  for (const row of rows) {
    const section = sectionIdOf(row.nav_section);
    if (!sections.has(section)) {
      await db
        .insertInto('nav_sections')
        .values({ id: section, title: titleOf(section), position: position++, updated_at: now })
        .execute();
      sections.add(section);
    }
    const key = appKeyOf(row.addon_key, row.surface);
    if (entries.has(key)) continue;
    await db
      .insertInto('nav_entries')
      .values({
        entry_key: key,
        section_id: section,
        position: Number(row.nav_order),
        page_id: null,
        app_key: row.addon_key,
        surface: row.surface,
        updated_at: now,
      })
      .execute();
    entries.add(key);
    moved++;
  }
  return moved;
}
