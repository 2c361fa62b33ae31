import {
  AppError,
  effectivePermissions,
  type Kernel,
  MetaReadCache,
  type Prefs,
  type Principal,
  type ResolvedPrefs,
  toUser,
  type User,
} from '../../kernel/api.js';
import { addonsRef } from '../add-ons/provides.js';
import { connectionsRef } from '../connections/provides.js';
import { meRef } from '../me/provides.js';
import { pagesRef, type NavSection } from '../pages/provides.js';
import { publicAdminRef } from '../public-admin/provides.js';
import { settingsRef } from '../settings/provides.js';
import { setupRef } from '../setup/provides.js';
import { type Onboarding, type OnboardingFacts, onboardingOf } from './onboarding.js';
import { type BootstrapDb, bootstrapDb } from './tables.js';

/** What the whole instance answers alike, whoever asks (decisions BO2). */
interface InstanceFacts extends OnboardingFacts {
  setupOpen: boolean;
  publicApiServed: boolean;
  requireTwoFactorForRoles: string[];
}

/** What one user's bootstrap reads of them. */
interface UserFacts {
  user: User;
  totpEnabled: boolean;
  prefs: { prefs: Prefs; resolved: ResolvedPrefs };
  unreadNotifications: number;
  dismissed: boolean;
}

/**
 * The tables behind each kept part (decisions BO2): a write to any of them in this process
 * empties the part at once (K30's rule); another replica's write is seen within 5 s.
 */
const INSTANCE_TABLES = ['kernel_state', 'settings', 'connections', 'pages', 'users', 'addons', 'public_keys'] as const;
const USER_TABLES = ['users', 'user_prefs', 'notifications', 'settings', 'onboarding_dismissals'] as const;

export interface SessionPart {
  user: User;
  roles: string[];
  permissions: string[];
  grants: ReturnType<typeof effectivePermissions>['grants'];
  twoFactorSetupRequired: boolean;
  prefs: { prefs: Prefs; resolved: ResolvedPrefs };
  nav: { sections: NavSection[] };
  unreadNotifications: number;
  onboarding: Onboarding;
  publicApi?: { served: boolean; enabled: boolean };
}

export class BootstrapService {
  private readonly db: BootstrapDb;
  private readonly instance: MetaReadCache<InstanceFacts>;
  private readonly users: MetaReadCache<UserFacts | null>;

  constructor(private readonly kernel: Kernel) {
    this.db = bootstrapDb(kernel.db);
    this.instance = new MetaReadCache(kernel.meta.writes, INSTANCE_TABLES, { max: 1 });
    this.users = new MetaReadCache(kernel.meta.writes, USER_TABLES, { max: 10_000 });
  }

  /** The instance's facts: at hand when kept, else one read of each provider (a handful of statements, no per-item query). */
  facts(): Promise<InstanceFacts> {
    return this.instance.get('instance', () => this.loadFacts());
  }

  private async loadFacts(): Promise<InstanceFacts> {
    const k = this.kernel;
    const [setupOpen, smtpConfigured, security, connections, pages, users, addons, publicApi, publicKey] = await Promise.all([
      k.plugin(setupRef).isOpen(),
      k.mailer.configured(),
      k.plugin(settingsRef).security(),
      k.plugin(connectionsRef).list(),
      k.plugin(pagesRef).all(),
      k.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirstOrThrow(),
      k.plugin(addonsRef).installedCount(),
      k.plugin(publicAdminRef).state(),
      k.plugin(publicAdminRef).hasLiveKey(),
    ]);
    return {
      setupOpen,
      smtpConfigured,
      requireTwoFactorForRoles: security.requireTwoFactorForRoles,
      connections: connections.length,
      ownPages: pages.some((p) => p.generatedKey === null || p.kind === 'dashboard'),
      users: Number(users.n),
      addons,
      publicApiEnabled: publicApi.enabled,
      publicApiServed: publicApi.served,
      publicKey,
    };
  }

  /** One user's facts, kept until one of USER_TABLES is written; null when the user is gone. */
  private userFacts(userId: string): Promise<UserFacts | null> {
    return this.users.get(userId, async () => {
      const me = this.kernel.plugin(meRef);
      const [row, prefs, unreadNotifications, dismissal] = await Promise.all([
        this.kernel.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst(),
        me.prefsOf(userId),
        me.unreadNotifications(userId),
        this.db.selectFrom('onboarding_dismissals').select('user_id').where('user_id', '=', userId).executeTakeFirst(),
      ]);
      if (!row) return null;
      return { user: toUser(row), totpEnabled: Boolean(row.totp_enabled), prefs, unreadNotifications, dismissed: dismissal !== undefined };
    });
  }

  private async requireUserFacts(userId: string): Promise<UserFacts> {
    const facts = await this.userFacts(userId);
    if (!facts) throw new AppError('AUTH_SESSION_INVALID');
    return facts;
  }

  async onboarding(principal: Principal, userId: string): Promise<Onboarding> {
    const [facts, mine] = await Promise.all([this.facts(), this.requireUserFacts(userId)]);
    return onboardingOf(principal, facts, mine.totpEnabled, mine.dismissed);
  }

  /** Idempotent: the first dismissal's time stays. */
  async dismiss(userId: string): Promise<boolean> {
    const known = await this.db.selectFrom('onboarding_dismissals').select('user_id').where('user_id', '=', userId).executeTakeFirst();
    if (known) return false;
    try {
      await this.db.insertInto('onboarding_dismissals').values({ user_id: userId, dismissed_at: this.kernel.now() }).execute();
      return true;
    } catch (err) {
      // Two tabs at once: the other one's row is the dismissal.
      const now = await this.db.selectFrom('onboarding_dismissals').select('user_id').where('user_id', '=', userId).executeTakeFirst();
      if (now) return false;
      throw err;
    }
  }

  /** The signed-in part of `GET /bootstrap`, for a principal with a user (a session). */
  async session(principal: Principal, userId: string): Promise<SessionPart> {
    const [facts, mine, nav] = await Promise.all([this.facts(), this.requireUserFacts(userId), this.kernel.plugin(pagesRef).nav.read(principal)]);
    const roles = principal.roleIds;
    const held = effectivePermissions(principal.permissions, this.kernel.permissions);
    const part: SessionPart = {
      user: mine.user,
      roles,
      ...held,
      twoFactorSetupRequired: !mine.totpEnabled && roles.some((r) => facts.requireTwoFactorForRoles.includes(r)),
      prefs: mine.prefs,
      nav,
      unreadNotifications: mine.unreadNotifications,
      onboarding: onboardingOf(principal, facts, mine.totpEnabled, mine.dismissed),
    };
    if (principal.permissions.has('public-api.read')) part.publicApi = { served: facts.publicApiServed, enabled: facts.publicApiEnabled };
    return part;
  }
}
