import type { PluginDefinition } from '../kernel/plugin/manifest.js';
import events from './events/manifest.js';
import health from './health/manifest.js';
import meta from './meta/manifest.js';
import settings from './settings/manifest.js';
import setup from './setup/manifest.js';

/** The first-party plugins every instance loads. */
export const firstPartyPlugins: PluginDefinition[] = [health, setup, meta, events, settings];
