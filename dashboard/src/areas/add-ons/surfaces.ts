import { usePermissions } from '../account/api';
import type { Surface } from './api';

/** Whether the signed-in person may work in apps' pages (add-ons.use, which GET /surfaces needs; decisions DB20 as amended). */
export function useUsesApps(): boolean {
  return usePermissions()?.has('add-ons.use') ?? false;
}

/**
 * Whether to offer the controls that need add-ons.manage (mapping names, instances, placing
 * pages): from the caller's permissions (decisions DB25, DB26 as amended); the server still decides.
 */
export function useManagesAddOns(): boolean {
  return usePermissions()?.has('add-ons.manage') ?? false;
}

export const appPagePath = (appKey: string, surface: string) => `/apps/${encodeURIComponent(appKey)}/${encodeURIComponent(surface)}`;
