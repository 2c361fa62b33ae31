export { main, HELP, type CliIo } from './main.js';
export { initAddon, keyFromName, skeleton, InitRefused } from './init.js';
export { checkAddon, CheckFailed, formatProblem, type CheckedAddon, type Problem } from './check.js';
export { packAddon, packageFileName, type PackResult } from './pack.js';
export { bundleServer, readServerExports, BundleError, SANDBOX_SDK, SERVER_ENTRIES, type ServerExports } from './bundle.js';
export {
  startDev,
  findInstance,
  DevError,
  DEV_FOLDER,
  DEV_EMAIL,
  DEFAULT_DEV_PORT,
  type DevOptions,
  type DevSession,
  type DevOutcome,
  type DevInstalled,
  type DevCredentials,
} from './dev.js';
