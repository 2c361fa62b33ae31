import { defineServiceRef, type Kernel } from '../../kernel/api.js';
import { LayoutService } from './layouts.js';
import { MyNotifications } from './notifications.js';
import { PrefsService, type PrefsView } from './prefs.js';
import { ProfileService } from './profile.js';
import type { MeProvides } from './provides.js';
import { meDb } from './tables.js';
import { settingsRef } from '../settings/provides.js';

/** The signed-in user's services; what others may read of them is MeProvides (provides.ts). */
export class MeService implements MeProvides {
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

  localeOfAddress(email: string): Promise<string | null> {
    return this.prefs.localeOfAddress(email);
  }

  prefsOf(userId: string): Promise<PrefsView> {
    return this.prefs.view(userId);
  }

  unreadNotifications(userId: string): Promise<number> {
    return this.notifications.unreadCount(userId);
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const meServiceRef = defineServiceRef<MeService>('me');
