import { AppError, type MetaDb, type PasswordGuard, toUser, type User, verifyPassword } from '../../kernel/api.js';

export interface ProfilePatch {
  name?: string;
  email?: string;
  password?: string;
}

export interface ProfileChange {
  user: User;
  /** Only the fields that changed, for the audit trail. */
  before: Partial<Pick<User, 'name' | 'email'>>;
  after: Partial<Pick<User, 'name' | 'email'>>;
}

/** Matches setup's normalisation, so the unique index sees one spelling of an address. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * The signed-in user's own profile. Changing the e-mail (the sign-in name and the address
 * resets go to) needs the current password, so a session left open cannot take the account.
 */
export class ProfileService {
  constructor(
    private readonly db: MetaDb,
    private readonly now: () => number,
    // A stolen session must not become a password oracle: the sign-in budget (D8) applies here too.
    private readonly guard: PasswordGuard,
  ) {}

  async get(userId: string): Promise<User> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return toUser(row);
  }

  async update(userId: string, patch: ProfilePatch, address: string): Promise<ProfileChange> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    const email = patch.email === undefined ? undefined : normaliseEmail(patch.email);
    const emailChanges = email !== undefined && email !== row.email;
    // A password that is sent is always checked, so a wrong one never passes silently.
    if (emailChanges || patch.password !== undefined) await this.checkPassword(row.email, address, row.password_hash, patch.password);
    if (emailChanges && (await this.emailTaken(email, userId))) throw new AppError('CONFLICT', { params: { field: 'email' } });

    const before: ProfileChange['before'] = {};
    const after: ProfileChange['after'] = {};
    if (patch.name !== undefined && patch.name !== row.name) [before.name, after.name] = [row.name, patch.name];
    if (emailChanges) [before.email, after.email] = [row.email, email];
    if (Object.keys(after).length === 0) return { user: toUser(row), before, after };

    const set = { ...after, updated_at: this.now() };
    try {
      await this.db.updateTable('users').set(set).where('id', '=', userId).execute();
    } catch (err) {
      // Lost a race for the address: the unique index refused it.
      if (emailChanges && (await this.emailTaken(email, userId))) throw new AppError('CONFLICT', { params: { field: 'email' } });
      throw err;
    }
    return { user: toUser({ ...row, ...set }), before, after };
  }

  private async checkPassword(account: string, address: string, hash: string | null, password: string | undefined): Promise<void> {
    const attempt = this.guard.reserve(account, address);
    try {
      if (password !== undefined && (await verifyPassword(hash, password))) return;
      attempt.failed();
    } finally {
      attempt.end();
    }
    throw new AppError('AUTH_INVALID_CREDENTIALS', { message: 'The current password is wrong or missing.' });
  }

  private async emailTaken(email: string, userId: string): Promise<boolean> {
    const other = await this.db.selectFrom('users').select('id').where('email', '=', email).where('id', '!=', userId).executeTakeFirst();
    return other !== undefined;
  }
}
