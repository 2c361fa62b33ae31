/**
 * What readiness reports beside the meta store's reachability: a drain under way (decisions
 * K43) and storage seen full (decisions K44). Both are plain fields read by `GET /readyz`.
 */
export class ServingState {
  /** Set once a SIGTERM/SIGINT drain has begun; never cleared (the process is on its way out). */
  draining = false;
  private fullAt: number | null = null;

  constructor(
    private readonly now: () => number,
    /** How long a full storage is reported after it was last seen, unless a write succeeds first. */
    private readonly fullHoldMs = 30_000,
  ) {}

  sawStorageFull(): void {
    this.fullAt = this.now();
  }

  /** An insert reached the meta store: it has room again (updates and deletes may need none). */
  inserted(): void {
    if (this.fullAt !== null) this.fullAt = null;
  }

  get storageFull(): boolean {
    if (this.fullAt === null) return false;
    if (this.now() - this.fullAt < this.fullHoldMs) return true;
    this.fullAt = null;
    return false;
  }
}
