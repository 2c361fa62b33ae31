// Loaded on first use: most processes start long before anyone signs in (issue 12: idle memory).
const argon2 = () => import('argon2').then((m) => m.default);

/** argon2id's cost: memory in KiB, passes over it, and parallel lanes. */
export interface PasswordHashCost {
  memoryKib: number;
  passes: number;
  lanes: number;
}

/** The library's defaults (m=64 MiB, t=3, p=4), above OWASP's minimum (m=19 MiB, t=2, p=1). */
export const DEFAULT_PASSWORD_HASH: Readonly<PasswordHashCost> = { memoryKib: 65_536, passes: 3, lanes: 4 };

/** Whether a cost is below OWASP's recommended minimum for argon2id (the server warns at start). */
export const belowRecommendedCost = (c: PasswordHashCost): boolean => c.memoryKib < 19_456 || c.passes < 2;

// One cost a process: it comes from the process's configuration (SVC_PASSWORD_HASH), set when
// the app is created. A stored hash carries its own cost, so changing it never locks anyone out.
let cost: PasswordHashCost = { ...DEFAULT_PASSWORD_HASH };

export function setPasswordHashCost(next: PasswordHashCost): void {
  if (next.memoryKib === cost.memoryKib && next.passes === cost.passes && next.lanes === cost.lanes) return;
  cost = { ...next };
  decoy = null;
}

/** argon2id at the configured cost. */
export function hashPassword(password: string): Promise<string> {
  const { memoryKib, passes, lanes } = cost;
  return argon2().then((a) => a.hash(password, { type: a.argon2id, memoryCost: memoryKib, timeCost: passes, parallelism: lanes }));
}

/**
 * Whether a stored hash was made at another cost than the configured one: sign-in hashes the
 * password again when it was right, so a changed SVC_PASSWORD_HASH reaches every account that
 * signs in, and a known e-mail's verify costs what the decoy's does (K52).
 */
export async function hashCostDiffers(hash: string): Promise<boolean> {
  const { memoryKib, passes, lanes } = cost;
  try {
    return (await argon2()).needsRehash(hash, { memoryCost: memoryKib, timeCost: passes, parallelism: lanes });
  } catch {
    return false;
  }
}

// A real hash of a random password at the configured cost: verifying against it costs what a
// real verify costs, so an unknown e-mail answers in the same time as a wrong password.
let decoy: Promise<string> | null = null;

export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (!hash) {
    decoy ??= hashPassword(`decoy-${Math.random()}`);
    await (await argon2()).verify(await decoy, password).catch(() => false);
    return false;
  }
  try {
    return await (await argon2()).verify(hash, password);
  } catch {
    return false;
  }
}
