import { defineServiceRef } from '../../kernel/api.js';

/** What the setup plugin provides (`kernel.plugin(setupRef)` from a plugin that requires 'setup'). */
export interface SetupProvides {
  /** Whether first-boot setup is still open (no super admin yet), as `GET /setup/state` answers. */
  isOpen(): Promise<boolean>;
}

/** `kernel.plugin(setupRef)` from a plugin that requires 'setup'. */
export const setupRef = defineServiceRef<SetupProvides>('setup');
