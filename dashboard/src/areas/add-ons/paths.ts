/**
 * The plan screen of installing or upgrading to a staged version. The version is not the last
 * segment: the server takes a last segment with a dot (`1.0.0`) for a file, not a screen.
 */
export const planPath = (key: string, version: string) => `/add-ons/${encodeURIComponent(key)}/versions/${encodeURIComponent(version)}/plan`;
export const addonPath = (key: string) => `/add-ons/${encodeURIComponent(key)}`;
