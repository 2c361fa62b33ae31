// Loaded on first use: most processes start long before anyone signs in (issue 12: idle memory).
const argon2 = () => import('argon2').then((m) => m.default);

/** argon2id with the library's defaults (m=64 MiB, t=3, p=4). */
export function hashPassword(password: string): Promise<string> {
  return argon2().then((a) => a.hash(password, { type: a.argon2id }));
}

// A real hash of a random password: verifying against it costs what a real verify costs, so
// an unknown e-mail answers in the same time as a wrong password.
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
