import type { Dialect, Driver } from 'kysely';

/** `dialect` whose driver is `wrap(driver)`: what the meta store layers over kysely's drivers. */
export function wrapDriver(dialect: Dialect, wrap: (driver: Driver) => Driver): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => wrap(dialect.createDriver()),
  };
}
