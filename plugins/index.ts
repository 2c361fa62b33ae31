import type { PluginDefinition } from '../kernel/api.js';
import addOns from './add-ons/manifest.js';
import apiKeys from './api-keys/manifest.js';
import audit from './audit/manifest.js';
import auth from './auth/manifest.js';
import bootstrap from './bootstrap/manifest.js';
import branding from './branding/manifest.js';
import connections from './connections/manifest.js';
import data from './data/manifest.js';
import events from './events/manifest.js';
import exportsPlugin from './exports/manifest.js';
import health from './health/manifest.js';
import i18n from './i18n/manifest.js';
import importsPlugin from './imports/manifest.js';
import jobs from './jobs/manifest.js';
import llm from './llm/manifest.js';
import me from './me/manifest.js';
import meta from './meta/manifest.js';
import pages from './pages/manifest.js';
import publicAdmin from './public-admin/manifest.js';
import publicApi from './public-api/manifest.js';
import roles from './roles/manifest.js';
import schema from './schema/manifest.js';
import schemaImport from './schema-import/manifest.js';
import scheduledReports from './scheduled-reports/manifest.js';
import search from './search/manifest.js';
import settings from './settings/manifest.js';
import setup from './setup/manifest.js';
import users from './users/manifest.js';
import widgetData from './widget-data/manifest.js';
import workspace from './workspace/manifest.js';

/** The first-party plugins every instance loads. */
export const firstPartyPlugins: PluginDefinition[] = [
  health,
  setup,
  meta,
  events,
  settings,
  branding,
  i18n,
  auth,
  roles,
  users,
  apiKeys,
  me,
  audit,
  jobs,
  pages,
  connections,
  schema,
  data,
  exportsPlugin,
  importsPlugin,
  publicAdmin,
  publicApi,
  schemaImport,
  addOns,
  scheduledReports,
  widgetData,
  bootstrap,
  search,
  workspace,
  llm,
];
