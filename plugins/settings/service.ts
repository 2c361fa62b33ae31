import { z } from 'zod';
import { defineServiceRef, EMAIL_SETTINGS_KEY, EMPTY_PREFS, type Kernel, type Prefs, prefFields, type StoredSmtp } from '../../kernel/api.js';

export const securitySettingsSchema = z
  .strictObject({
    /** Role ids whose members must enrol in 2FA (`twoFactorSetupRequired` until they do). */
    requireTwoFactorForRoles: z.array(z.string().min(1).max(32)).max(100),
  })
  .meta({ id: 'SecuritySettings' });
export type SecuritySettings = z.infer<typeof securitySettingsSchema>;

export const smtpInputSchema = z.strictObject({
  host: z.string().min(1).max(253),
  port: z.number().int().min(1).max(65535),
  security: z.enum(['none', 'starttls', 'tls']),
  user: z.string().min(1).max(320).nullable(),
  /** Absent keeps the stored password; null clears it. Never returned. */
  password: z.string().min(1).max(1000).nullable().optional(),
  from: z.string().min(3).max(320),
  replyTo: z.string().min(3).max(320).nullable().optional(),
});
export type SmtpInput = z.infer<typeof smtpInputSchema>;

export const smtpViewSchema = z
  .strictObject({
    host: z.string(),
    port: z.number(),
    security: z.enum(['none', 'starttls', 'tls']),
    user: z.string().nullable(),
    passwordSet: z.boolean(),
    from: z.string(),
    replyTo: z.string().nullable(),
  })
  .meta({ id: 'SmtpSettings' });
export type SmtpView = z.infer<typeof smtpViewSchema>;

const SECURITY_KEY = 'security';
const DEFAULTS_KEY = 'defaults';

/** What the settings plugin provides to others (auth reads the security policy, me the defaults). */
export class SettingsService {
  constructor(private readonly kernel: Kernel) {}

  async security(): Promise<SecuritySettings> {
    const parsed = securitySettingsSchema.safeParse(await this.kernel.settings.get(SECURITY_KEY));
    return parsed.success ? parsed.data : { requireTwoFactorForRoles: [] };
  }

  async setSecurity(value: SecuritySettings): Promise<SecuritySettings> {
    await this.kernel.settings.set(SECURITY_KEY, value);
    return value;
  }

  async defaults(): Promise<Prefs> {
    // Not strict: defaults stored while ME8 put a `timeZone` among them read with it dropped.
    const parsed = z.object(prefFields).safeParse(await this.kernel.settings.get(DEFAULTS_KEY));
    return parsed.success ? parsed.data : EMPTY_PREFS;
  }

  async setDefaults(value: Prefs): Promise<Prefs> {
    await this.kernel.settings.set(DEFAULTS_KEY, value);
    return value;
  }

  async smtp(): Promise<SmtpView | null> {
    const s = await this.kernel.mailer.stored();
    return s
      ? { host: s.host, port: s.port, security: s.security, user: s.user, passwordSet: s.passwordSealed !== null, from: s.from, replyTo: s.replyTo }
      : null;
  }

  /** The password is sealed with SVC_SECRET before it is stored. */
  async setSmtp(input: SmtpInput | null): Promise<SmtpView | null> {
    if (input === null) {
      await this.kernel.settings.set(EMAIL_SETTINGS_KEY, null);
      return null;
    }
    const prior = await this.kernel.mailer.stored();
    const passwordSealed =
      input.password === undefined ? (prior?.passwordSealed ?? null) : input.password === null ? null : this.kernel.secrets('smtp').encrypt(input.password);
    const stored: StoredSmtp = {
      host: input.host,
      port: input.port,
      security: input.security,
      user: input.user,
      passwordSealed,
      from: input.from,
      replyTo: input.replyTo ?? null,
    };
    await this.kernel.settings.set(EMAIL_SETTINGS_KEY, stored);
    return this.smtp();
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const settingsServiceRef = defineServiceRef<SettingsService>('settings');
