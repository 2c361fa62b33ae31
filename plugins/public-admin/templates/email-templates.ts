import { AppError, fallbackChain, type Mailer, type MailTemplate } from '../../../kernel/api.js';
import { BOOKING_SAMPLE_VARS } from './booking-template.js';
import { BOOKING_CONFIRMATION_TEMPLATE } from '../provides.js';
import type { PublicAdminDb } from '../tables.js';

export interface TemplateView {
  key: string;
  locale: string;
  subject: string;
  text: string;
  html: string | null;
  /** Where the content comes from: an edit stored for this locale, the registered default, or a fallback locale's. */
  source: 'edited' | 'default' | 'fallback';
  /** The locale the content is from (differs from `locale` for a fallback). */
  resolvedLocale: string;
  edited: boolean;
  /** The `{{name}}` placeholders the content uses. */
  variables: string[];
  updatedAt: number | null;
}

export interface TemplateSummary {
  key: string;
  locale: string;
  edited: boolean;
  hasDefault: boolean;
  subject: string;
  updatedAt: number | null;
}

const placeholders = (t: MailTemplate) =>
  [...new Set([...`${t.subject}\n${t.text}\n${t.html ?? ''}`.matchAll(/\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g)].map((m) => m[1]!))].sort();

/**
 * Edited mail templates (D15) per key and locale. The kernel's renderer asks `override()` first
 * (through `useOverrides`), so every sender (invitations, password resets, booking confirmations)
 * uses an edit as soon as it is stored, falling back from `de_AT` to `de` to `en`.
 */
export class EmailTemplates {
  constructor(
    private readonly db: PublicAdminDb,
    private readonly mailer: Mailer,
    private readonly now: () => number,
    /** The locales a template is offered in besides its own (every enabled locale of the i18n plugin). */
    private readonly offeredLocales: () => Promise<readonly string[]> = async () => [],
  ) {}

  async override(key: string, locale: string): Promise<(MailTemplate & { updatedAt: number }) | null> {
    const row = await this.db.selectFrom('email_templates').selectAll().where('key', '=', key).where('locale', '=', locale).executeTakeFirst();
    return row ? { subject: row.subject, text: row.text, ...(row.html !== null ? { html: row.html } : {}), updatedAt: Number(row.updated_at) } : null;
  }

  private registeredKeys(): Set<string> {
    return new Set(this.mailer.templates.keys().map((k) => k.key));
  }

  private assertKey(key: string): void {
    if (!this.registeredKeys().has(key)) throw new AppError('NOT_FOUND', { message: `No e-mail template ${key}.`, params: { key } });
  }

  /**
   * Every registered key × locale (its defaults' and every enabled locale of the instance, so a
   * template can be written in each), plus locales only an edit exists for. An offered locale
   * with neither a default nor an edit shows the subject it would be sent with (its fallback's).
   */
  async list(): Promise<TemplateSummary[]> {
    const registered = this.registeredKeys();
    const [edits, offered] = await Promise.all([
      this.db.selectFrom('email_templates').select(['key', 'locale', 'subject', 'updated_at']).execute(),
      this.offeredLocales(),
    ]);
    const out = new Map<string, TemplateSummary>();
    for (const { key, locale } of this.mailer.templates.keys()) {
      const d = this.mailer.templates.defaultOf(key, locale)!;
      out.set(`${key}\u0000${locale}`, { key, locale, edited: false, hasDefault: true, subject: d.subject, updatedAt: null });
    }
    for (const e of edits) {
      // An edit of a template no loaded plugin registers any more is kept but not offered.
      if (!registered.has(e.key)) continue;
      const id = `${e.key}\u0000${e.locale}`;
      out.set(id, { key: e.key, locale: e.locale, edited: true, hasDefault: out.has(id), subject: e.subject, updatedAt: Number(e.updated_at) });
    }
    for (const key of registered)
      for (const locale of offered) {
        if (out.has(`${key}\u0000${locale}`)) continue;
        const from = fallbackChain(locale)
          .map((l) => out.get(`${key}\u0000${l}`))
          .find((s) => s !== undefined);
        if (from) out.set(`${key}\u0000${locale}`, { key, locale, edited: false, hasDefault: false, subject: from.subject, updatedAt: null });
      }
    return [...out.values()].sort((a, b) => a.key.localeCompare(b.key) || a.locale.localeCompare(b.locale));
  }

  async get(key: string, locale: string): Promise<TemplateView> {
    this.assertKey(key);
    for (const candidate of fallbackChain(locale)) {
      const edit = await this.override(key, candidate);
      const tpl = edit ?? this.mailer.templates.defaultOf(key, candidate);
      if (!tpl) continue;
      const exact = candidate === locale;
      return {
        key,
        locale,
        subject: tpl.subject,
        text: tpl.text,
        html: tpl.html ?? null,
        source: !exact ? 'fallback' : edit ? 'edited' : 'default',
        resolvedLocale: candidate,
        edited: exact && edit !== null,
        variables: placeholders(tpl),
        updatedAt: exact && edit ? edit.updatedAt : null,
      };
    }
    throw new AppError('NOT_FOUND', { message: `No e-mail template ${key} for ${locale} or en.`, params: { key, locale } });
  }

  async put(key: string, locale: string, tpl: { subject: string; text: string; html?: string | null }): Promise<{ before: TemplateView; after: TemplateView }> {
    const before = await this.get(key, locale);
    const values = { subject: tpl.subject, text: tpl.text, html: tpl.html ?? null, updated_at: this.now() };
    const update = () => this.db.updateTable('email_templates').set(values).where('key', '=', key).where('locale', '=', locale).executeTakeFirst();
    if (Number((await update()).numUpdatedRows) === 0) {
      try {
        await this.db
          .insertInto('email_templates')
          .values({ key, locale, ...values })
          .execute();
      } catch (err) {
        // A simultaneous first edit inserted the row: this one replaces it, as it would a moment later.
        if (Number((await update()).numUpdatedRows) === 0) throw err;
      }
    }
    return { before, after: await this.get(key, locale) };
  }

  /**
   * Renders the template as the senders would (edits first, locale fallback) and sends it. The
   * variables the caller leaves out are shown as `[name]` (booking samples for the booking
   * confirmation), so a test mail shows where each one lands.
   */
  async testSend(key: string, locale: string, to: string, vars: Record<string, string | number>): Promise<{ messageId: string; locale: string }> {
    const view = await this.get(key, locale);
    const smtp = await this.mailer.stored();
    if (!smtp) throw new AppError('EMAIL_NOT_CONFIGURED');
    const samples: Record<string, string | number> = key === BOOKING_CONFIRMATION_TEMPLATE ? { ...BOOKING_SAMPLE_VARS } : {};
    const filled = { ...Object.fromEntries(view.variables.map((v) => [v, samples[v] ?? `[${v}]`])), ...vars };
    const rendered = await this.mailer.templates.render(key, locale, filled);
    const result = await this.mailer.send({ to, subject: rendered.subject, text: rendered.text, ...(rendered.html ? { html: rendered.html } : {}) }, smtp);
    if (!result.sent) throw new AppError(result.reason === 'not-configured' ? 'EMAIL_NOT_CONFIGURED' : 'EMAIL_SEND_FAILED');
    return { messageId: result.messageId, locale: rendered.locale };
  }
}
