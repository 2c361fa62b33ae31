import { AppError } from '../../../kernel/api.js';
import { DistinctWindow } from './distinct.js';
import { WeightedWindow } from './window.js';

/** The seed's "Limits → Public API" table, per minute. */
export const PUBLIC_LIMITS = {
  windowMs: 60_000,
  perAddress: 600,
  browserReads: 3000,
  browserWrites: 300,
  /** Each visitor gets this fraction of a browser key's budget (250 reads, 25 writes). */
  visitorShareOf: 12,
  maxPeak: 5,
  defaultEndpoint: 120,
  /**
   * Different party sizes one address may ask one endpoint's availability for with a browser
   * key, within `partySizeWindowMs`: each answer tells whether that many places are left, so
   * many sizes would tell how many are.
   */
  partySizes: 4,
  partySizeWindowMs: 10 * 60_000,
} as const;

export type Traffic = 'read' | 'write';

export interface ChargePlan {
  keyId: string;
  kind: 'browser' | 'server';
  /** An app key's manifest peak (1..5); 1 for other keys. */
  peak: number;
  /** `s:<session id>` for a signed-in customer, else `a:<address>`. */
  visitor: string;
  traffic: Traffic;
  /** The endpoint's own limit; null for requests that name no endpoint (config, session end). */
  endpoint: { ref: string; limit: number } | null;
  /** Requests against the endpoint limit: the row count of a batch, else 1. */
  rows: number;
}

/** What a request was charged; `refundKey` takes back the whole-key part of a refused request. */
export interface Charge {
  refundKey(): void;
}

const NOTHING: Charge = { refundKey: () => undefined };

function limited(retryAfter: number, limit: string): AppError {
  return new AppError('PUBLIC_RATE_LIMITED', { params: { limit, retryAfter }, headers: { 'retry-after': String(retryAfter) } });
}

/**
 * The network an address stands for: an IPv6 address's /64 (what one household or server is
 * given, so a prober cannot take a fresh address per question), an IPv4 address itself.
 */
export function networkOf(address: string): string {
  const a = address.split('%')[0]!.toLowerCase();
  if (!a.includes(':') || /^::ffff:\d+\.\d+\.\d+\.\d+$/.test(a)) return address;
  const groups = (part: string) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const [head = '', tail] = a.split('::');
  const front = groups(head);
  const full = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - groups(tail).length)).fill('0'), ...groups(tail)];
  return `${full
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

/**
 * Every counter of the public API. Checks and charges happen in one synchronous step, so
 * concurrent requests of one process can never both pass on the last unit.
 */
export class PublicLimits {
  private readonly address: WeightedWindow;
  private readonly endpoint: WeightedWindow;
  private readonly key: WeightedWindow;
  private readonly visitor: WeightedWindow;

  private readonly partySizes: DistinctWindow;

  constructor(now: () => number) {
    this.partySizes = new DistinctWindow(PUBLIC_LIMITS.partySizeWindowMs, PUBLIC_LIMITS.partySizes, now);
    this.address = new WeightedWindow(PUBLIC_LIMITS.windowMs, now);
    this.endpoint = new WeightedWindow(PUBLIC_LIMITS.windowMs, now);
    this.key = new WeightedWindow(PUBLIC_LIMITS.windowMs, now);
    this.visitor = new WeightedWindow(PUBLIC_LIMITS.windowMs, now);
  }

  /** 600 a minute per address across every public route, refused ones included. */
  chargeAddress(address: string): void {
    const wait = this.address.take(address, 1, PUBLIC_LIMITS.perAddress);
    if (wait > 0) throw limited(wait, 'address');
  }

  /**
   * An availability question for `party` places from a browser key's visitor at `address`
   * (the address, not the session: a guest cannot get a fresh allowance by claiming one).
   * A server key is the venue's own backend and is not counted.
   */
  chargePartySize(keyId: string, kind: 'browser' | 'server', ref: string, address: string, party: number): void {
    if (kind !== 'browser') return;
    const wait = this.partySizes.take(`${keyId}\u0000${ref}\u0000${networkOf(address)}`, party);
    if (wait > 0) throw limited(wait, 'party-sizes');
  }

  static keyBudget(traffic: Traffic, peak: number): number {
    const multiplier = Math.min(PUBLIC_LIMITS.maxPeak, Math.max(1, Math.floor(peak)));
    return (traffic === 'read' ? PUBLIC_LIMITS.browserReads : PUBLIC_LIMITS.browserWrites) * multiplier;
  }

  static visitorBudget(traffic: Traffic, peak: number): number {
    return Math.floor(PublicLimits.keyBudget(traffic, peak) / PUBLIC_LIMITS.visitorShareOf);
  }

  /** Throws PUBLIC_RATE_LIMITED (with Retry-After) when any limit is reached; charges all of them otherwise. */
  charge(plan: ChargePlan): Charge {
    // Written out rather than as a list of checks: this runs on every public request.
    if (plan.kind === 'server') {
      // Only the endpoint's limit, across the whole key: checked and charged in one step.
      const wait = plan.endpoint ? this.endpoint.take(`${plan.keyId}\u0000${plan.endpoint.ref}`, plan.rows, plan.endpoint.limit) : 0;
      if (wait > 0) throw limited(wait, 'endpoint');
      return NOTHING;
    }
    // A browser key's endpoint limit is per visitor.
    let endpointKey: string | null = null;
    let endpointWait = 0;
    if (plan.endpoint) {
      endpointKey = `${plan.keyId}\u0000${plan.endpoint.ref}\u0000${plan.visitor}`;
      endpointWait = this.endpoint.wait(endpointKey, plan.rows, plan.endpoint.limit);
    }
    const wholeKey = `${plan.keyId}\u0000${plan.traffic}`;
    const visitorKey = `${wholeKey}\u0000${plan.visitor}`;
    const keyWait = this.key.wait(wholeKey, 1, PublicLimits.keyBudget(plan.traffic, plan.peak));
    const visitorWait = this.visitor.wait(visitorKey, 1, PublicLimits.visitorBudget(plan.traffic, plan.peak));
    // The longest wait names the limit; on a tie the first of endpoint, key, visitor.
    let worst = endpointWait;
    let name = 'endpoint';
    if (keyWait > worst) [worst, name] = [keyWait, 'key'];
    if (visitorWait > worst) [worst, name] = [visitorWait, 'visitor'];
    if (worst > 0) throw limited(worst, name);
    if (endpointKey) this.endpoint.add(endpointKey, plan.rows);
    this.key.add(wholeKey, 1);
    this.visitor.add(visitorKey, 1);
    let refunded = false;
    return {
      refundKey: () => {
        if (refunded) return;
        refunded = true;
        this.key.refund(wholeKey, 1);
      },
    };
  }
}
