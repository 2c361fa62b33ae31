import { defineServiceRef } from '../../kernel/api.js';

/** An installed add-on as search lists one. */
export interface AddonName {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
}

/** What the add-ons plugin provides to other plugins (`kernel.plugin(addonsRef)` from a plugin that requires 'add-ons'). */
export interface AddonsProvides {
  /** Every installed add-on's key, name and description, by key (search's index). */
  names(): Promise<AddonName[]>;
  /** Changes when an add-on was installed, changed or removed (other replicas poll it). */
  stamp(): Promise<string>;
  /** How many add-ons are installed (enabled or disabled): the onboarding's "install an add-on" step. */
  installedCount(): Promise<number>;
  /** Each installed add-on's key, and whether the instance ships it (its built-in catalog). */
  installedKeys(): Promise<{ key: string; builtIn: boolean }[]>;
}

/** `kernel.plugin(addonsRef)` from a plugin that requires 'add-ons'. */
export const addonsRef = defineServiceRef<AddonsProvides>('add-ons');
