import type { PluginDefinition } from '../kernel/plugin/manifest.js';
import apiKeys from './api-keys/manifest.js';
import audit from './audit/manifest.js';
import auth from './auth/manifest.js';
import events from './events/manifest.js';
import health from './health/manifest.js';
import me from './me/manifest.js';
import meta from './meta/manifest.js';
import roles from './roles/manifest.js';
import settings from './settings/manifest.js';
import setup from './setup/manifest.js';
import users from './users/manifest.js';

/** The first-party plugins every instance loads. */
export const firstPartyPlugins: PluginDefinition[] = [health, setup, meta, events, settings, auth, roles, users, apiKeys, me, audit];
