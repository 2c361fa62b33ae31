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

  /** Refuses before any credential is looked at, so a throttled account fails even with the right password. */
  assertAllowed(account: string, address: string): void {
    const wait = Math.max(this.perAccount.retryAfter(account), this.perAddress.retryAfter(address));
    if (wait > 0) throw new AppError('RATE_LIMITED', { params: { retryAfter: wait }, headers: { 'retry-after': String(wait) } });
  }

  recordFailure(account: string, address: string): void {
    this.perAccount.record(account);
    this.perAddress.record(address);
  }
}
