/** The plan screen of installing or upgrading to a staged version. */
export const planPath = (key: string, version: string) => `/add-ons/${encodeURIComponent(key)}/plan/${encodeURIComponent(version)}`;
export const addonPath = (key: string) => `/add-ons/${encodeURIComponent(key)}`;
