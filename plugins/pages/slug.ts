/**
 * A URL-safe slug from free text: lower-case ASCII letters, digits and single dashes, short
 * enough for the slug column. The pages plugin owns slugs: its routes and the generator (through
 * provides.ts) make them here, then `freeSlug` makes one unique.
 */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 190)
    .replace(/-+$/, '');
  return slug || 'page';
}
