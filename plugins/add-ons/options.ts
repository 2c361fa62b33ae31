/**
 * What a test or the dev entry may change in the add-ons plugin it starts
 * (`createAddonsPlugin(options)` in manifest.ts); the server's plugin (kernel/main.ts) is built
 * with none. Each function is asked when it matters, so a test may change its answer between
 * requests.
 */
export interface AddonsOptions {
  /**
   * Outbound requests refuse loopback addresses, and tests serve catalogs, APIs and OAuth
   * providers from 127.0.0.1. `catalog`: the remote catalog's requests; `fetch`: add-ons'
   * `ctx.fetch` and connect's token requests. Let through while this answers true.
   */
  allowLoopback?: (use: 'catalog' | 'fetch') => boolean;
  /**
   * `svc-addon dev --allow-outbound`: exact origins (URL#origin) an add-on's `ctx.fetch` reaches
   * past its outbound list and the address checks. Set only by scripts/dev-instance.ts, which the
   * server build does not bundle; nothing in the production config reads it (decisions AO40).
   */
  devOutboundOrigins?: readonly string[];
  /** Makes an install fail half-way, to prove that a failure leaves the instance as it was. */
  installFault?: () => InstallFault | null;
}

/** Fail after `ddlSteps` DDL steps, or inside the meta transaction. */
export interface InstallFault {
  ddlSteps?: number;
  inMetaTransaction?: boolean;
}
