/**
 * A typed handle on what a plugin provides, made once by the provider (the shape of Backstage's
 * `createServiceRef<T>`): `kernel.plugin(connectionsRef)` is typed by the plugin that gives the
 * value, not by each caller's guess. The kernel still checks that the caller requires the
 * provider (or is it).
 */
export interface ServiceRef<T> {
  /** The providing plugin's name. */
  readonly plugin: string;
  /** Never set: carries T for the compiler only. */
  readonly __provides?: T;
}

export function defineServiceRef<T>(plugin: string): ServiceRef<T> {
  return Object.freeze({ plugin });
}
