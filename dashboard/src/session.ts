/**
 * Kept for shell/LiveSync.tsx, which reads the key of "who is signed in" from here; the account
 * data lives in areas/account/api.ts.
 */
export { accountKeys } from './areas/account/api';
import { accountKeys } from './areas/account/api';
export const ME = accountKeys.me;
