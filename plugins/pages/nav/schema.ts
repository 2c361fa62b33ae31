import { z } from 'zod';

/** An entry as the caller reads it (NavItem in provides.ts). */
const navItemSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('page'),
    pageId: z.string(),
    slug: z.string(),
    title: z.string(),
    icon: z.string().nullable(),
    kind: z.enum(['list', 'detail', 'dashboard', 'form', 'custom']),
  }),
  z.strictObject({ type: z.literal('app'), appKey: z.string(), surface: z.string(), title: z.string() }),
]);

/** The navigation as the caller reads it: PUT /pages/nav-order's answer and GET /bootstrap's session.nav. */
export const navSchema = z
  .strictObject({
    sections: z.array(z.strictObject({ id: z.string(), title: z.string(), entries: z.array(navItemSchema) })),
  })
  .meta({ id: 'Nav' });
