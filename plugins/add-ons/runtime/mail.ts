import { z } from 'zod';
import type { AddonManifest } from '../../../addons-sdk/src/manifest/index.js';
import { AppError, isLocale, type Json, type Kernel, type MailTemplate, type MailTemplates, newId } from '../../../kernel/api.js';
import { meRef } from '../../me/provides.js';
import { addonsDb, type AddonsDb } from '../tables.js';

/**
 * `ctx.mail.send` (AO24): an add-on sends only the e-mails its manifest declares
 * (`mail.templates`, listed and editable under e-mail templates as `<key>.<name>`), to one
 * address, in the recipient's language, at most SVC_ADDON_MAIL_PER_HOUR a rolling hour, counted
 * in the meta store so that replicas share the quota.
 */

const HOUR_MS = 60 * 60 * 1000;
/** One plain address as the instance's own e-mail fields take it (PA17): a list or a display name is refused. */
const oneAddress = z.email().max(320);

export const addonTemplateKey = (key: string, name: string): string => `${key}.${name}`;

/** The templates an add-on's manifest declares, by key and locale; the top-level content is `en`. */
export function templatesOf(m: AddonManifest): Array<{ key: string; locale: string; template: MailTemplate }> {
  const out: Array<{ key: string; locale: string; template: MailTemplate }> = [];
  const content = (c: { subject: string; text: string; html?: string | undefined }): MailTemplate => ({
    subject: c.subject,
    text: c.text,
    ...(c.html ? { html: c.html } : {}),
  });
  for (const t of m.mail?.templates ?? []) {
    const key = addonTemplateKey(m.key, t.name);
    out.push({ key, locale: 'en', template: content(t) });
    for (const [locale, c] of Object.entries(t.locales ?? {})) if (locale !== 'en') out.push({ key, locale, template: content(c) });
  }
  return out;
}

/** Puts the enabled add-ons' templates in the kernel's registry and takes away those of add-ons gone or disabled. */
export function syncAddonTemplates(
  templates: MailTemplates,
  manifests: readonly AddonManifest[],
  previous: ReadonlySet<string>,
  log: Kernel['log'],
): Set<string> {
  const owners = new Set<string>();
  for (const m of manifests) {
    owners.add(m.key);
    const refused = templates.replaceOwned(m.key, templatesOf(m));
    if (refused.length) log.warn({ addon: m.key, templates: refused }, 'an add-on mail template has the key of another sender: not registered');
  }
  for (const key of previous) if (!owners.has(key)) templates.replaceOwned(key, []);
  return owners;
}

/** Deletes the sends older than the quota's hour, of every add-on. */
export async function sweepMailSends(db: AddonsDb, now: number): Promise<void> {
  await db
    .deleteFrom('addon_mail_sends')
    .where('sent_at', '<=', now - HOUR_MS)
    .execute();
}

export class AddonMail {
  constructor(private readonly kernel: Kernel) {}

  async send(m: AddonManifest, args: Json[]): Promise<Json> {
    const [name, to, vars] = args;
    if (typeof name !== 'string' || typeof to !== 'string')
      throw new AppError('VALIDATION_FAILED', { message: 'mail.send(template, to, vars): the name of one of your mail templates and one address.' });
    if (!(m.mail?.templates ?? []).some((t) => t.name === name))
      throw new AppError('ADDON_MAIL_TEMPLATE_UNKNOWN', {
        message: `The add-on declares no mail template ${name.slice(0, 60)} (addon.json mail.templates).`,
        params: { template: name.slice(0, 60) },
      });
    const address = to.trim();
    if (!oneAddress.safeParse(address).success)
      throw new AppError('VALIDATION_FAILED', { message: 'mail.send sends to one plain address (no list, no display name).' });
    const key = addonTemplateKey(m.key, name);
    // A template whose key a built-in sender or another add-on holds was not registered for this one.
    if (this.kernel.mailer.templates.ownerOf(key) !== m.key)
      throw new AppError('ADDON_MAIL_TEMPLATE_UNKNOWN', { message: `The mail template ${key} is not registered for this add-on.`, params: { template: name } });
    await this.take(m.key);
    const plain = Object.fromEntries(
      Object.entries(vars !== null && typeof vars === 'object' && !Array.isArray(vars) ? vars : {}).map(([k, v]) => [k, typeof v === 'number' ? v : String(v)]),
    );
    const result = await this.kernel.mailer.sendTemplate(key, await this.localeOf(address), address, plain);
    return { sent: result.sent };
  }

  /**
   * Counts one send, or refuses it when the add-on sent its quota within the last hour. The send
   * is written first and counted after, so two replicas racing for the last place cannot both
   * take it (at worst both refuse, and both rows go).
   */
  private async take(key: string): Promise<void> {
    const limit = this.kernel.config.addons.mailPerHour;
    const now = Date.now();
    const db = addonsDb(this.kernel.db);
    await db
      .deleteFrom('addon_mail_sends')
      .where('addon_key', '=', key)
      .where('sent_at', '<=', now - HOUR_MS)
      .execute();
    const id = newId(now);
    await db.insertInto('addon_mail_sends').values({ id, addon_key: key, sent_at: now }).execute();
    const sent = await db
      .selectFrom('addon_mail_sends')
      .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('sent_at').as('oldest')])
      .where('addon_key', '=', key)
      .where('sent_at', '>', now - HOUR_MS)
      .executeTakeFirstOrThrow();
    if (Number(sent.n) <= limit) return;
    await db.deleteFrom('addon_mail_sends').where('id', '=', id).execute();
    const retryAfterSeconds = Math.max(1, Math.ceil((Number(sent.oldest ?? now) + HOUR_MS - now) / 1000));
    throw new AppError('ADDON_MAIL_QUOTA', { params: { limit, retryAfterSeconds } });
  }

  /** A user's own language when the address is a user's, else the instance's default language, else en. */
  private async localeOf(address: string): Promise<string> {
    try {
      const locale = await this.kernel.plugin(meRef).localeOfAddress(address);
      if (locale && isLocale(locale)) return locale;
    } catch (err) {
      this.kernel.log.warn({ err: { message: (err as Error).message } }, "could not read a recipient's language");
    }
    const defaults = await this.kernel.settings.get<{ locale?: unknown }>('defaults');
    return typeof defaults?.locale === 'string' && isLocale(defaults.locale) ? defaults.locale : 'en';
  }
}
