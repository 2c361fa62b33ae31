export interface MailTemplate {
  subject: string;
  text: string;
  html?: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html?: string;
  locale: string;
}

/** Stored edits of a template (the email-templates plugin supplies them). */
export type TemplateOverrides = (key: string, locale: string) => Promise<MailTemplate | null>;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * Mail templates per key and locale (D15): `{{name}}` placeholders, a fallback from
 * `pt_BR` to `pt` to `en`. Plugins register their defaults; stored overrides win.
 */
export class MailTemplates {
  private readonly defaults = new Map<string, MailTemplate>();
  private overrides: TemplateOverrides | null = null;
  /** Keys registered for an owner (an add-on, AO24) by `replaceOwned`; built-in keys have none. */
  private readonly owners = new Map<string, string>();

  register(key: string, locale: string, template: MailTemplate): void {
    this.defaults.set(`${key}\u0000${locale}`, template);
  }

  /**
   * Replaces every template `owner` registered (an add-on's `mail.templates`): what is not in
   * `entries` is gone. A key another owner or a built-in sender holds is not taken: it is
   * answered among the refused keys and left as it was.
   */
  replaceOwned(owner: string, entries: ReadonlyArray<{ key: string; locale: string; template: MailTemplate }>): string[] {
    for (const [key, o] of [...this.owners]) {
      if (o !== owner) continue;
      this.owners.delete(key);
      for (const id of [...this.defaults.keys()]) if (id.startsWith(`${key}\u0000`)) this.defaults.delete(id);
    }
    const refused = new Set<string>();
    for (const e of entries) {
      const held = this.owners.get(e.key);
      if ((held !== undefined && held !== owner) || (held === undefined && this.hasKey(e.key))) {
        refused.add(e.key);
        continue;
      }
      this.owners.set(e.key, owner);
      this.defaults.set(`${e.key}\u0000${e.locale}`, e.template);
    }
    return [...refused];
  }

  /** Who registered a key through `replaceOwned`; null for a built-in sender's key or none. */
  ownerOf(key: string): string | null {
    return this.owners.get(key) ?? null;
  }

  hasKey(key: string): boolean {
    for (const id of this.defaults.keys()) if (id.startsWith(`${key}\u0000`)) return true;
    return false;
  }

  useOverrides(source: TemplateOverrides): void {
    this.overrides = source;
  }

  keys(): Array<{ key: string; locale: string }> {
    return [...this.defaults.keys()].map((k) => {
      const [key, locale] = k.split('\u0000') as [string, string];
      return { key, locale };
    });
  }

  defaultOf(key: string, locale: string): MailTemplate | null {
    return this.defaults.get(`${key}\u0000${locale}`) ?? null;
  }

  async render(key: string, locale: string, vars: Record<string, string | number>): Promise<RenderedMail> {
    for (const candidate of fallbackChain(locale)) {
      const tpl = (await this.overrides?.(key, candidate)) ?? this.defaults.get(`${key}\u0000${candidate}`);
      if (!tpl) continue;
      const fill = (s: string, esc: (v: string) => string) =>
        s.replace(/\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g, (_m, name: string) => (name in vars ? esc(String(vars[name])) : ''));
      return {
        subject: fill(tpl.subject, (v) => v.replace(/[\r\n]+/g, ' ')),
        text: fill(tpl.text, (v) => v),
        ...(tpl.html ? { html: fill(tpl.html, escapeHtml) } : {}),
        locale: candidate,
      };
    }
    throw new Error(`no mail template ${key} for ${locale} or en`);
  }
}

export function fallbackChain(locale: string): string[] {
  const parts = locale.split('_');
  const chain: string[] = [];
  for (let i = parts.length; i > 0; i--) chain.push(parts.slice(0, i).join('_'));
  if (!chain.includes('en')) chain.push('en');
  return chain;
}
