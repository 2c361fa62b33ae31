import type { Kernel } from '../../kernel/kernel-services.js';
import type { SettingsService } from '../settings/manifest.js';
import { LayoutService } from './layouts.js';
import { MyNotifications } from './notifications.js';
import { PrefsService } from './prefs.js';
import { ProfileService } from './profile.js';
import { meDb } from './tables.js';

/** What the me plugin provides: others may read a user's resolved preferences (mail locale, bootstrap). */
export class MeService {
  readonly profile: ProfileService;
  readonly prefs: PrefsService;
  readonly notifications: MyNotifications;
  readonly layouts: LayoutService;

  constructor(kernel: Kernel) {
    const now = () => kernel.now();
    const db = meDb(kernel.db);
    this.profile = new ProfileService(kernel.db, now, kernel.passwordGuard);
    this.prefs = new PrefsService(db, () => kernel.plugin<SettingsService>('settings').defaults(), now);
    this.notifications = new MyNotifications(kernel.db, now);
    this.layouts = new LayoutService(db, now);
  }
}
