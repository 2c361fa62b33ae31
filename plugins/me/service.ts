import { defineServiceRef, type Kernel } from '../../kernel/api.js';
import { LayoutService } from './layouts.js';
import { MyNotifications } from './notifications.js';
import { PrefsService } from './prefs.js';
import { ProfileService } from './profile.js';
import { meDb } from './tables.js';
import { settingsRef } from '../settings/provides.js';

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
    this.prefs = new PrefsService(db, () => kernel.plugin(settingsRef).defaults(), now);
    this.notifications = new MyNotifications(kernel.db, now);
    this.layouts = new LayoutService(db, now);
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const meServiceRef = defineServiceRef<MeService>('me');
