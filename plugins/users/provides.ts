import { defineServiceRef } from '../../kernel/api.js';

/** A user as search lists one: who, not what they may do. */
export interface UserName {
  id: string;
  name: string;
  email: string;
  status: 'active' | 'invited' | 'suspended';
}

/** What the users plugin provides (`kernel.plugin(usersRef)` from a plugin that requires 'users'). */
export interface UsersProvides {
  /** Every user's id, name, e-mail and status, in id order (search's index; tens of thousands at most). */
  names(): Promise<UserName[]>;
  /** Changes when a user was added, changed or removed: other replicas' caches poll it (as add-ons' `stamp`). */
  stamp(): Promise<string>;
}

/** `kernel.plugin(usersRef)` from a plugin that requires 'users'. */
export const usersRef = defineServiceRef<UsersProvides>('users');
