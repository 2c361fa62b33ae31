import { z } from 'zod';
import { definePlugin, projectPath } from '../../kernel/api.js';
import { i18nMigrations } from './tables.js';
import { I18N_READ, I18N_WRITE, readRoutes } from './routes.js';
import { writeRoutes } from './write-routes.js';
import { I18N_CHANGED, I18nService } from './service.js';

export type { I18nService } from './service.js';

/** What a test may change: the catalogue directory (a fixture with made-up locales); the server reads i18n/ at the repository root. */
export interface I18nOptions {
  catalogueDir?: string;
}

export function createI18nPlugin(options: I18nOptions = {}) {
  return definePlugin<I18nService>({
    name: 'i18n',
    version: '1.0.0',
    description: 'Locales, the message catalogue and its translations, served as bundles to the dashboard (issue 31 §1).',
    // The instance default (/settings/defaults) cannot be disabled or deleted.
    requires: ['settings'],
    permissions: [
      { name: I18N_READ, label: 'See translations', description: 'List keys, format errors and exports of every locale.', roles: ['editor'] },
      // No role but admin by declaration; a custom "translator" role can hold it (IN1).
      { name: I18N_WRITE, label: 'Translate and manage locales', description: 'Change messages, import translations, add, change and delete locales.' },
    ],
    migrations: i18nMigrations,
    events: {
      [I18N_CHANGED]: {
        schema: z.strictObject({ locale: z.string(), namespace: z.string().nullable() }),
        permission: 'self',
        description: 'Messages or a locale changed (namespace null: the locale itself): read the manifest and the bundles shown again.',
      },
    },
    errors: {
      I18N_LOCALE_NOT_FOUND: { status: 404, message: 'There is no such locale, or it is disabled.' },
      I18N_LOCALE_EXISTS: { status: 409, message: 'The locale exists already.' },
      I18N_FILE_INVALID: { status: 400, message: 'The file cannot be read as a translation file of this format (params.reason says why).' },
    },
    routes: [...readRoutes, ...writeRoutes],
    setup: (kernel) => new I18nService(kernel, options.catalogueDir ?? projectPath('i18n')),
  });
}

export default createI18nPlugin();
