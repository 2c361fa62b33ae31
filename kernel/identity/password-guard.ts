import { AppError } from '../errors.js';
import { SlidingWindowCounter } from '../throttle.js';

const WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_ACCOUNT = 10;
export const FAILURES_PER_ADDRESS = 30;

/**
 * D8: failed password (and 2FA code) checks per account and per address in a 15-minute window,
 * one budget per instance for every route that checks a password (sign-in, password change,
 * 2FA disable, e-mail change), so no route becomes a second guessing channel. The account key is
 * the e-mail as typed (normalised), so an unknown e-mail is throttled exactly like a real one
 * and the 429 says nothing about whether the account exists.
 */
export class PasswordGuard {
  private readonly perAccount: SlidingWindowCounter;
  private readonly perAddress: SlidingWindowCounter;

  constructor(now: () => number) {
    this.perAccount = new SlidingWindowCounter(FAILURES_PER_ACCOUNT, WINDOW_MS, now);
    this.perAddress = new SlidingWindowCounter(FAILURES_PER_ADDRESS, WINDOW_MS, now);
  }

  /**
   * Reserves one attempt for the account and the address before any credential is looked at,
   * or refuses with 429 (so a throttled account fails even with the right password). The
   * reservation counts against both limits while the check runs: a burst of concurrent
   * attempts gets at most the limit evaluated (issue 11). The caller must end it: `failed()`
   * turns it into a recorded failure, `end()` (in a finally) lets it go otherwise.
   */
  reserve(account: string, address: string): PasswordAttempt {
    const wait = Math.max(this.perAccount.retryAfter(account), this.perAddress.retryAfter(address));
    if (wait > 0) throw new AppError('RATE_LIMITED', { params: { retryAfter: wait }, headers: { 'retry-after': String(wait) } });
    this.perAccount.hold(account);
    this.perAddress.hold(address);
    let open = true;
    const release = () => {
      if (!open) return;
      open = false;
      this.perAccount.release(account);
      this.perAddress.release(address);
    };
    return {
      failed: () => {
        if (!open) return;
        release();
        this.perAccount.record(account);
        this.perAddress.record(address);
      },
      end: release,
    };
  }
}

export interface PasswordAttempt {
  /** The credential was wrong: the attempt stays counted, as a failure in the window. */
  failed(): void;
  /** The attempt is over without a failure (or the failure was already recorded): no-op after `failed`. */
  end(): void;
}
