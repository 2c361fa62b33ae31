import { useSessionRoles, type Surface } from './api';

/**
 * The built-in roles that hold add-ons.use, which GET /surfaces needs. The session names roles,
 * not permissions: a viewer or a custom role is not asked for the list (a 403 on every screen
 * would be noise), so only these see placed pages in the navigation.
 */
const USES_APPS = new Set(['admin', 'editor']);

/** Whether the signed-in person's roles let them work in apps' pages. */
export function useUsesApps(): boolean {
  return useSessionRoles()?.some((role) => USES_APPS.has(role)) ?? false;
}

/**
 * The built-in roles that lack add-ons.manage (it is admin-only by declaration). A custom role
 * may hold it, and the session does not say: it is offered the controls and the server's 403
 * is shown if it may not, as the grid does for writes.
 */
const NO_MANAGE = new Set(['editor', 'viewer']);

/** Whether to offer the controls that need add-ons.manage (mapping names, …). */
export function useManagesAddOns(): boolean {
  return useSessionRoles()?.some((role) => !NO_MANAGE.has(role)) ?? false;
}

export const appPagePath = (appKey: string, surface: string) => `/apps/${encodeURIComponent(appKey)}/${encodeURIComponent(surface)}`;

/** A section's kebab-case name as words: `front-desk` → "Front desk" (the operator chose the name; D28). */
export function sectionLabel(section: string): string {
  const words = section.replace(/-+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The placed pages of enabled apps by section (sections by name), each section's pages by order, then title. */
export function placedBySection(surfaces: readonly Surface[]): Array<{ section: string; pages: Surface[] }> {
  const sections = new Map<string, Surface[]>();
  for (const s of surfaces) {
    if (s.kind !== 'dashboard-page' || !s.enabled || !s.placement) continue;
    const list = sections.get(s.placement.section) ?? [];
    list.push(s);
    sections.set(s.placement.section, list);
  }
  return [...sections.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([section, pages]) => ({
      section,
      pages: pages.sort((a, b) => a.placement!.order - b.placement!.order || a.title.localeCompare(b.title)),
    }));
}
