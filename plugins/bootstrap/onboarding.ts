import type { Principal } from '../../kernel/api.js';

/** The checklist's steps, in the order the dashboard shows them (decisions BO3). */
export const ONBOARDING_STEPS = [
  'connect-database',
  'create-page',
  'invite-colleague',
  'enable-two-factor',
  'open-public-api',
  'install-add-on',
  'set-up-email',
] as const;
export type OnboardingStepId = (typeof ONBOARDING_STEPS)[number];

export interface OnboardingStep {
  id: OnboardingStepId;
  done: boolean;
  /** Where in the dashboard the step is done. */
  href: string;
}

export interface Onboarding {
  dismissed: boolean;
  steps: OnboardingStep[];
  completed: number;
  total: number;
}

/** The instance-wide facts the steps are read from (kept in memory, decisions BO2). */
export interface OnboardingFacts {
  connections: number;
  /** A page made by hand (not by generation), or any dashboard. */
  ownPages: boolean;
  users: number;
  publicApiEnabled: boolean;
  publicKey: boolean;
  addons: number;
  smtpConfigured: boolean;
}

/** Each step: the permission that lets the caller do it (null: anyone signed in), where, and whether it is done. */
const RULES: Record<OnboardingStepId, { permission: string | null; href: string; done: (f: OnboardingFacts, totpEnabled: boolean) => boolean }> = {
  'connect-database': { permission: 'connections.write', href: '/connections/new', done: (f) => f.connections > 0 },
  'create-page': { permission: 'pages.write', href: '/pages/new', done: (f) => f.ownPages },
  'invite-colleague': { permission: 'users.write', href: '/users', done: (f) => f.users > 1 },
  'enable-two-factor': { permission: null, href: '/account/two-factor', done: (_f, totp) => totp },
  'open-public-api': { permission: 'public-api.write', href: '/public-api', done: (f) => f.publicApiEnabled && f.publicKey },
  'install-add-on': { permission: 'add-ons.manage', href: '/add-ons', done: (f) => f.addons > 0 },
  'set-up-email': { permission: 'settings.write', href: '/settings/email', done: (f) => f.smtpConfigured },
};

/** The caller's checklist: only the steps they may do, each from the facts as they are now. */
export function onboardingOf(principal: Principal, facts: OnboardingFacts, totpEnabled: boolean, dismissed: boolean): Onboarding {
  const steps: OnboardingStep[] = [];
  for (const id of ONBOARDING_STEPS) {
    const rule = RULES[id];
    if (rule.permission !== null && !principal.permissions.has(rule.permission)) continue;
    steps.push({ id, done: rule.done(facts, totpEnabled), href: rule.href });
  }
  return { dismissed, steps, completed: steps.filter((s) => s.done).length, total: steps.length };
}
