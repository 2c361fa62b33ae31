import { definePlugin } from '../../kernel/api.js';
import { settingsRoutes } from './routes.js';
import { SettingsService } from './service.js';

export default definePlugin<SettingsService>({
  name: 'settings',
  version: '1.0.0',
  description: 'Instance settings: security policy, outgoing e-mail, preference defaults.',
  permissions: [
    { name: 'settings.read', label: 'See settings', description: 'See the instance settings (secrets are never shown).' },
    { name: 'settings.write', label: 'Change settings', description: 'Change the instance settings.' },
  ],
  routes: settingsRoutes,
  setup: (kernel) => new SettingsService(kernel),
});
