import argon2 from 'argon2';

/** argon2id with the library's defaults (m=64 MiB, t=3, p=4). */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

// A real hash of a random password: verifying against it costs what a real verify costs, so
// an unknown e-mail answers in the same time as a wrong password.
let decoy: Promise<string> | null = null;

export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (!hash) {
    decoy ??= hashPassword(`decoy-${Math.random()}`);
    await argon2.verify(await decoy, password).catch(() => false);
    return false;
  }
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
