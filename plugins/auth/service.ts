import { defineServiceRef, AppError, type Kernel, type PasswordGuard, type Principal, requireUser, SlidingWindowCounter } from '../../kernel/api.js';
import { mailResetLink } from './passwords.js';
import { authDb, type AuthDb, type UserRow } from './tables.js';
import { TwoFactor } from './two-factor.js';

/** Reset mails per e-mail address per window: beyond it, forgot still answers ok but sends nothing. */
const RESET_MAILS_PER_ADDRESS = 5;
const RESET_MAIL_WINDOW_MS = 15 * 60_000;

/**
 * What the auth plugin holds per instance: its throttles live here (process memory, one set per
 * app, never shared between two instances in one process) together with the 2FA service.
 */
export class AuthService {
  readonly db: AuthDb;
  readonly throttle: PasswordGuard;
  readonly twoFactor: TwoFactor;
  private readonly resetMails: SlidingWindowCounter;

  constructor(private readonly kernel: Kernel) {
    const now = () => kernel.now();
    this.db = authDb(kernel.db);
    this.throttle = kernel.passwordGuard;
    this.twoFactor = new TwoFactor(this.db, kernel.secrets('totp'), now, kernel.log);
    this.resetMails = new SlidingWindowCounter(RESET_MAILS_PER_ADDRESS, RESET_MAIL_WINDOW_MS, now);
  }

  /** The signed-in user behind a session; an API key has none. */
  async userOf(principal: Principal | null): Promise<{ user: UserRow; sessionId: string | null }> {
    const { userId, sessionId } = requireUser(principal);
    const user = await this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!user) throw new AppError('AUTH_SESSION_INVALID');
    return { user, sessionId };
  }

  /**
   * Starts the reset mail without waiting for it, so the answer to `forgot` takes the same time
   * whether or not the e-mail exists. Failures are logged, never answered.
   */
  requestResetMail(email: string, base: string): void {
    if (this.resetMails.retryAfter(email) > 0) {
      this.kernel.log.info('password reset mail suppressed: too many for this address');
      return;
    }
    this.resetMails.record(email);
    mailResetLink(this.kernel, email, base).catch((err: Error) => this.kernel.log.error({ err: { message: err.message } }, 'password reset mail failed'));
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const authServiceRef = defineServiceRef<AuthService>('auth');
