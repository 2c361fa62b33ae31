/**
 * The SDK's package name on npm (decisions AO39): scoped, so that `npx` and `npm install` of it
 * can only ever reach the project's own package. Authors' code imports it; pack resolves it (and
 * the in-repo workspace's older name) to the sandbox's `defineAddon`.
 */
export const SDK_PACKAGE = '@svc-admin/addons-sdk';
/** The name of the SDK's workspace inside the svc-admin repository (not published); server code may import it too. */
export const SDK_WORKSPACE_PACKAGE = '@svc/addons-sdk';
