import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { SecretBox } from '../crypto.js';
import type { Logger } from '../logger.js';
import type { SettingsStore } from '../settings.js';
import { MailTemplates } from './templates.js';

export const EMAIL_SETTINGS_KEY = 'email';

/** What the store keeps: the password only sealed. */
export const storedSmtpSchema = z.object({
  host: z.string(),
  port: z.number().int(),
  security: z.enum(['none', 'starttls', 'tls']),
  user: z.string().nullable(),
  passwordSealed: z.string().nullable(),
  from: z.string(),
  replyTo: z.string().nullable().default(null),
});
export type StoredSmtp = z.infer<typeof storedSmtpSchema>;

/** K49: what one mail may carry in attachments, all together (bytes). */
export const MAIL_ATTACHMENTS_MAX_BYTES = 10 * 1024 * 1024;

/** A file sent with a mail: its bytes, or a stream of exactly `size` bytes (read once, while sending). */
export interface MailAttachment {
  filename: string;
  contentType?: string;
  content: Buffer | Readable;
  /** Required for a stream (the bound is checked before sending); a Buffer's own length otherwise. */
  size?: number;
}

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** At most MAIL_ATTACHMENTS_MAX_BYTES together; more is refused (`too-large`) before connecting. */
  attachments?: MailAttachment[];
}

export type SendResult = { sent: true; messageId: string } | { sent: false; reason: 'not-configured' | 'failed' | 'too-large' };

/** The bytes a mail's attachments hold together (a stream counts its declared size). */
export function attachmentBytes(attachments: readonly MailAttachment[] = []): number {
  return attachments.reduce((n, a) => n + (Buffer.isBuffer(a.content) ? a.content.length : (a.size ?? Number.POSITIVE_INFINITY)), 0);
}

/** Sends through the SMTP server stored in `PUT /settings/email` (D15). */
export class Mailer {
  readonly templates = new MailTemplates();

  constructor(
    private readonly settings: SettingsStore,
    private readonly box: SecretBox,
    private readonly log: Logger,
  ) {}

  async stored(): Promise<StoredSmtp | null> {
    const raw = await this.settings.get<unknown>(EMAIL_SETTINGS_KEY);
    const parsed = storedSmtpSchema.safeParse(raw);
    return parsed.success && parsed.data.host ? parsed.data : null;
  }

  async configured(): Promise<boolean> {
    return (await this.stored()) !== null;
  }

  /** Never throws for delivery problems: the caller's operation succeeds without mail. */
  async send(mail: OutgoingMail, smtp?: StoredSmtp): Promise<SendResult> {
    const s = smtp ?? (await this.stored());
    if (!s) return { sent: false, reason: 'not-configured' };
    if (attachmentBytes(mail.attachments) > MAIL_ATTACHMENTS_MAX_BYTES) {
      for (const a of mail.attachments ?? []) if (!Buffer.isBuffer(a.content)) a.content.destroy();
      return { sent: false, reason: 'too-large' };
    }
    try {
      // Loaded on first use: most processes never send mail, and nodemailer costs ~12 MB.
      const { default: nodemailer } = await import('nodemailer');
      const transport = nodemailer.createTransport({
        host: s.host,
        port: s.port,
        secure: s.security === 'tls',
        requireTLS: s.security === 'starttls',
        ignoreTLS: s.security === 'none',
        ...(s.user ? { auth: { user: s.user, pass: s.passwordSealed ? this.box.decrypt(s.passwordSealed) : '' } } : {}),
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      });
      const info = await transport.sendMail({
        from: s.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html ? { html: mail.html } : {}),
        ...(mail.attachments?.length
          ? {
              attachments: mail.attachments.map((a) => ({
                filename: a.filename,
                content: a.content,
                ...(a.contentType ? { contentType: a.contentType } : {}),
              })),
            }
          : {}),
        ...(s.replyTo ? { replyTo: s.replyTo } : {}),
      });
      transport.close();
      return { sent: true, messageId: String(info.messageId) };
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message }, smtpHost: s.host }, 'mail not sent');
      return { sent: false, reason: 'failed' };
    }
  }

  /** Renders a template in the recipient's locale (falling back to en) and sends it. */
  async sendTemplate(key: string, locale: string, to: string, vars: Record<string, string | number>): Promise<SendResult> {
    const rendered = await this.templates.render(key, locale, vars);
    return this.send({ to, subject: rendered.subject, text: rendered.text, ...(rendered.html ? { html: rendered.html } : {}) });
  }
}
