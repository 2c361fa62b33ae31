// Loaded on first use: only enrolment and second-factor checks need it.
const otp = () => import('otplib');
import { AppError, type Logger, type SecretBox } from '../../kernel/api.js';
import { dropChallengesOf } from './challenges.js';
import { dropRecoveryCodes, replaceRecoveryCodes, useRecoveryCode } from './recovery-codes.js';
import type { AuthDb, UserRow } from './tables.js';

const ISSUER = 'svc-admin';
/** D8: one 30-second step either side of the server's clock. */
const TOLERANCE_SECONDS = 30;
const TOTP_CODE = /^\d{6}$/;

/**
 * TOTP enrolment and second-factor checks (D8). Secrets are sealed at rest; each TOTP time
 * step is accepted once per user, and each recovery code once.
 */
export class TwoFactor {
  constructor(
    private readonly db: AuthDb,
    private readonly box: SecretBox,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {}

  /** A new secret awaiting activation; it replaces an earlier unfinished enrolment. */
  async startEnrolment(user: UserRow): Promise<{ secret: string; otpauthUrl: string }> {
    if (user.totp_enabled) throw new AppError('CONFLICT', { message: 'Two-factor authentication is already on; disable it first.' });
    const { generateSecret, generateURI } = await otp();
    const secret = generateSecret();
    const now = this.now();
    const sealed = this.box.encrypt(secret);
    const res = await this.db.updateTable('auth_totp').set({ pending_sealed: sealed, updated_at: now }).where('user_id', '=', user.id).executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) {
      await this.db
        .insertInto('auth_totp')
        .values({ user_id: user.id, secret_sealed: null, pending_sealed: sealed, last_step: null, updated_at: now })
        .execute();
    }
    return { secret, otpauthUrl: generateURI({ issuer: ISSUER, label: user.email, secret }) };
  }

  /** Turns the pending secret on when `code` proves the authenticator holds it; answers the recovery codes. */
  async activate(user: UserRow, code: string): Promise<string[]> {
    if (user.totp_enabled) throw new AppError('CONFLICT', { message: 'Two-factor authentication is already on.' });
    const row = await this.db.selectFrom('auth_totp').select(['pending_sealed']).where('user_id', '=', user.id).executeTakeFirst();
    const secret = row?.pending_sealed ? this.unseal(row.pending_sealed) : null;
    if (!secret) throw new AppError('CONFLICT', { message: 'Start enrolment first.' });
    const step = await this.matchingStep(secret, code);
    if (step === null) throw new AppError('AUTH_INVALID_CODE');
    const now = this.now();
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('auth_totp')
        .set({ secret_sealed: row!.pending_sealed, pending_sealed: null, last_step: step, updated_at: now })
        .where('user_id', '=', user.id)
        .where('pending_sealed', '=', row!.pending_sealed)
        .executeTakeFirst();
      // A second enrolment started meanwhile: this code belongs to a secret that is gone.
      if (Number(moved.numUpdatedRows) !== 1) throw new AppError('CONFLICT', { message: 'The enrolment changed; start again.' });
      await trx.updateTable('users').set({ totp_enabled: 1, updated_at: now }).where('id', '=', user.id).execute();
      return replaceRecoveryCodes(trx, user.id, now);
    });
  }

  /** A TOTP code not used before, or an unused recovery code; either is spent by a successful check. */
  async check(userId: string, code: string): Promise<boolean> {
    if (!TOTP_CODE.test(code)) return useRecoveryCode(this.db, userId, code, this.now());
    const row = await this.db.selectFrom('auth_totp').select(['secret_sealed', 'last_step']).where('user_id', '=', userId).executeTakeFirst();
    const secret = row?.secret_sealed ? this.unseal(row.secret_sealed) : null;
    if (!secret) return false;
    const step = await this.matchingStep(secret, code);
    const last = row!.last_step === null ? null : Number(row!.last_step);
    if (step === null || (last !== null && step <= last)) return false;
    // Claiming the step conditionally refuses a replay even when two requests race with one code.
    const res = await this.db
      .updateTable('auth_totp')
      .set({ last_step: step })
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Turns 2FA off: the secret, the recovery codes and open sign-in challenges go. */
  async clear(userId: string): Promise<void> {
    const now = this.now();
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('auth_totp').where('user_id', '=', userId).execute();
      await dropRecoveryCodes(trx, userId);
      await dropChallengesOf(trx, userId);
      await trx.updateTable('users').set({ totp_enabled: 0, updated_at: now }).where('id', '=', userId).execute();
    });
  }

  /** The time step `code` belongs to, within the tolerance; null when it matches none. */
  private async matchingStep(secret: string, code: string): Promise<number | null> {
    if (!TOTP_CODE.test(code)) return null;
    const { verify } = await otp();
    const result = await verify({ secret, token: code, epoch: Math.floor(this.now() / 1000), epochTolerance: TOLERANCE_SECONDS });
    // The functional API types HOTP and TOTP results together; a TOTP match carries its step.
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }

  private unseal(sealed: string): string | null {
    try {
      return this.box.decrypt(sealed);
    } catch (err) {
      // SVC_SECRET changed since enrolment: the secret is unreadable; recovery codes still work.
      this.log.error({ err: { message: (err as Error).message } }, 'a TOTP secret cannot be unsealed');
      return null;
    }
  }
}
