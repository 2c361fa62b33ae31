import { z } from 'zod';
import {
  dataOf,
  emailField,
  nameField,
  notificationSchema,
  passwordField,
  prefFields,
  prefsSchema,
  resolvedPrefsSchema,
  userSchema,
} from '../../kernel/api.js';

/** Ids are 26 Crockford base32 characters (K12); a cursor is the last id of the page before. */
export const cursorField = z.string().regex(/^[0-9a-hjkmnp-tv-z]{26}$/, 'Not a cursor this API gave out');

export const userData = dataOf(z.strictObject({ user: userSchema }));

export const profilePatch = z.strictObject({
  name: nameField.optional(),
  email: emailField.optional(),
  /** The current password: required to change the e-mail, checked whenever sent. */
  password: passwordField.optional(),
});

export const prefsData = dataOf(z.strictObject({ prefs: prefsSchema, resolved: resolvedPrefsSchema }));

export const prefsPatch = z.strictObject({
  theme: prefFields.theme.optional(),
  accent: prefFields.accent.optional(),
  density: prefFields.density.optional(),
  locale: prefFields.locale.optional(),
  dir: prefFields.dir.optional(),
});

export const notificationsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: cursorField.optional(),
  unread: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .meta({ description: 'true: only unread notifications' }),
});

export const notificationsData = dataOf(
  z.strictObject({ notifications: z.array(notificationSchema), nextCursor: z.string().nullable(), unreadCount: z.number().int().min(0) }),
);

export const notificationIdParams = z.object({ id: z.string().min(1).max(64) });
export const notificationData = dataOf(z.strictObject({ notification: notificationSchema }));
export const readAllData = dataOf(z.strictObject({ ok: z.literal(true), count: z.number().int().min(0) }));

export const notificationPrefSchema = z
  .strictObject({ kind: z.string().min(1).max(100), inApp: z.boolean(), email: z.boolean() })
  .meta({ id: 'NotificationPref' });

export const notificationPrefsBody = z.strictObject({
  prefs: z
    .array(notificationPrefSchema)
    .max(500)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((p, i) => {
        if (seen.has(p.kind)) ctx.addIssue({ code: 'custom', path: [i, 'kind'], message: 'Each kind may appear once' });
        seen.add(p.kind);
      });
    }),
});
export const notificationPrefsData = dataOf(z.strictObject({ prefs: z.array(notificationPrefSchema) }));

/** The whole request body of a layout PUT, not just the layout, is held to this. */
export const LAYOUT_BODY_LIMIT = 64 * 1024;
export const pageIdParams = z.object({ pageId: z.string().min(1).max(64) });
const columnName = z.string().min(1).max(128);
/** At most this many columns named in each part of a grid's layout. */
export const GRID_LAYOUT_COLUMNS = 500;
/**
 * A list page's grid as the person arranged it (decision ME9): the one part of a saved layout
 * the server knows the shape of, held to it and to its bounds (widths 40–2000 px).
 */
export const gridLayoutSchema = z
  .strictObject({
    order: z.array(columnName).max(GRID_LAYOUT_COLUMNS),
    hidden: z.array(columnName).max(GRID_LAYOUT_COLUMNS),
    widths: z
      .record(columnName, z.number().int().min(40).max(2000))
      .refine((w) => Object.keys(w).length <= GRID_LAYOUT_COLUMNS, { message: `At most ${GRID_LAYOUT_COLUMNS} widths` }),
    freezeKey: z.boolean(),
  })
  .meta({ id: 'GridColumnLayout', description: 'Column order, hidden columns, widths (px) and whether the key column stays in view' });
const layoutObject = z
  .looseObject({ grid: gridLayoutSchema.optional() })
  .meta({ description: "The dashboard's layout of the page, stored as given; its `grid` (a list page's columns) is held to GridColumnLayout" });
export const layoutBody = z.strictObject({ layout: layoutObject });
export const layoutData = dataOf(z.strictObject({ pageId: z.string(), layout: layoutObject, updatedAt: z.number() }));
/** GET: the saved layout, or nulls when none is saved. */
