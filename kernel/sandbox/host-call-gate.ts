/**
 * How many host calls (ctx.db, kv, mail, fetch) the API process answers at once: a few per
 * add-on and a few more in all, the rest wait in order. An add-on that fires a hundred reads at
 * once gets them answered a few at a time, so the memory and the main-thread time they take are
 * bounded by the slots, not by what the add-on asks for. A waiting host call whose sandbox call
 * is over (answered, timed out, crashed) never runs.
 */
export interface GateLimits {
  perAddon: number;
  total: number;
}

interface Waiter {
  addon: string;
  live: () => boolean;
  go: (release: (() => void) | null) => void;
}

export class HostCallGate {
  private active = 0;
  private readonly by = new Map<string, number>();
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limits: GateLimits) {}

  /** Resolves with the slot's release once one is free for `addon`, or null when `live()` said the call is over meanwhile. */
  enter(addon: string, live: () => boolean): Promise<(() => void) | null> {
    if (this.free(addon)) return Promise.resolve(this.take(addon));
    return new Promise((go) => this.waiting.push({ addon, live, go }));
  }

  stats(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  private free(addon: string): boolean {
    return this.active < this.limits.total && (this.by.get(addon) ?? 0) < this.limits.perAddon;
  }

  private take(addon: string): () => void {
    this.active++;
    this.by.set(addon, (this.by.get(addon) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      const left = (this.by.get(addon) ?? 1) - 1;
      if (left === 0) this.by.delete(addon);
      else this.by.set(addon, left);
      this.next();
    };
  }

  private next(): void {
    for (let i = 0; i < this.waiting.length && this.active < this.limits.total; i++) {
      const w = this.waiting[i]!;
      if (!w.live()) {
        this.waiting.splice(i--, 1);
        w.go(null);
        continue;
      }
      if (!this.free(w.addon)) continue;
      this.waiting.splice(i--, 1);
      w.go(this.take(w.addon));
    }
  }
}
