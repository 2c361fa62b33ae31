import { AppError } from '../../kernel/errors.js';
import { SlidingWindowCounter } from '../../kernel/throttle.js';

const WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_ACCOUNT = 10;
export const FAILURES_PER_ADDRESS = 30;

/**
 * D8: failed sign-ins per account and per address in a 15-minute window. The account key is
 * the e-mail as typed (normalised), so an unknown e-mail is throttled exactly like a real one
 * and the 429 says nothing about whether the account exists.
 */
export class LoginThrottle {
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
