import { z } from 'zod';

/** The navigation's ids and keys, shared by the store, its routes and its migration. */

/** A section id: kebab-case, 1–40 (the placement's old ids are made to fit by `sectionIdOf`). */
export const SECTION_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const sectionIdField = z.string().min(1).max(40).regex(SECTION_ID, 'kebab-case: lower-case letters and digits, words joined by single hyphens');

/** The last section, of the pages placed in no other (decisions PG10). */
export const PAGES_SECTION = 'pages';

export const pageKey = (pageId: string) => `page:${pageId}`;
export const appKeyOf = (appKey: string, surface: string) => `app:${appKey}/${surface}`;

/** An AO14 section id (`[a-z][a-z0-9-]{0,39}`) as a kebab id: runs of hyphens made one, none at either end. */
export function sectionIdOf(id: string): string {
  const kebab = id
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40)
    .replace(/-$/, '');
  return kebab || 'apps';
}

/** A title made from a section id: `my-apps` is "My apps". */
export function titleOf(id: string): string {
  const words = id.split('-').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
