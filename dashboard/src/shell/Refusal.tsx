import { AREAS } from '../areas';
import { t } from '../i18n/t';
import { RefusalText, useTitle } from '../ui';

/** A wouter pattern (`/users/:id`) as a test of a whole path. */
const patternTest = (pattern: string): RegExp => new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}/?$`);

/**
 * Each signed-in route with the permission of its area's navigation entry covering it (the
 * entry's path is the route's or a parent of it). A route of one area below another's entry
 * (a table's grid under /connections) is left to its own area: it asks with its own grants.
 */
const GUARDED = AREAS.flatMap((area) =>
  area.routes
    .filter((route) => (route.shown ?? 'signed-in') === 'signed-in')
    .map((route) => {
      const entry = area.nav.find((e) => e.permission && (route.path === e.path || route.path.startsWith(`${e.path}/`)));
      return { test: patternTest(route.path), permission: entry?.permission };
    }),
);

/**
 * The permission the caller lacks for the screen at `location`, or undefined when it has it (or
 * the screen asks for none here): the first route matching the location decides, as App.tsx's Switch does.
 */
export function missingPermission(location: string, permissions: ReadonlySet<string> | undefined): string | undefined {
  if (!permissions) return undefined;
  const permission = GUARDED.find((route) => route.test.test(location))?.permission;
  return permission && !permissions.has(permission) ? permission : undefined;
}

/** A whole screen the caller's permissions do not cover: its heading says so (the screen itself is not drawn). */
export function RouteRefusal({ permission }: { permission: string }) {
  useTitle('refusal.title');
  return (
    <section className="panel refusal" aria-labelledby="refusal-title">
      <h1 id="refusal-title">{t('refusal.title')}</h1>
      <RefusalText permission={permission} />
    </section>
  );
}
