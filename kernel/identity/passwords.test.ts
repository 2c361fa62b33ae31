import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_PASSWORD_HASH } from '../../test/helpers/instance.js';
import { belowRecommendedCost, DEFAULT_PASSWORD_HASH, hashPassword, setPasswordHashCost, verifyPassword } from './passwords.js';

const configured = (value?: string) =>
  loadConfig({
    SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-pw-')),
    SVC_SECRET: 's'.repeat(40),
    ...(value === undefined ? {} : { SVC_PASSWORD_HASH: value }),
  });

describe('password hashes (argon2id, SVC_PASSWORD_HASH)', () => {
  afterAll(() => setPasswordHashCost(configured(TEST_PASSWORD_HASH).passwordHash));

  it('hashes at 64 MiB, 3 passes and 4 lanes unless configured, and verifies', async () => {
    expect(configured().passwordHash).toEqual({ memoryKib: 65_536, passes: 3, lanes: 4 });
    setPasswordHashCost(configured().passwordHash);
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
    expect(await verifyPassword(hash, 'correct horse')).toBe(true);
    expect(await verifyPassword(hash, 'wrong horse')).toBe(false);
    expect(belowRecommendedCost(DEFAULT_PASSWORD_HASH)).toBe(false);
  });

  it('hashes new passwords at the configured cost; a hash made at another cost still verifies', async () => {
    setPasswordHashCost(configured().passwordHash);
    const old = await hashPassword('kept');
    setPasswordHashCost(configured('m=19456, t=2, p=1').passwordHash);
    const fresh = await hashPassword('kept');
    expect(fresh).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await verifyPassword(old, 'kept')).toBe(true);
    expect(await verifyPassword(fresh, 'kept')).toBe(true);
    expect(await verifyPassword(null, 'kept')).toBe(false);
    expect(await verifyPassword('not a hash', 'kept')).toBe(false);
  });

  it('refuses a cost argon2 cannot take or that is not in m=,t=,p= form, and knows OWASP’s minimum', () => {
    const message = /^Invalid configuration: SVC_PASSWORD_HASH must be m=<KiB from 1024 to 4194304>,t=<passes from 1 to 20>,p=<lanes from 1 to 16>/;
    for (const bad of [
      '64m',
      'm=512,t=1,p=1',
      'm=65536,t=0,p=4',
      'm=65536,t=3,p=17',
      'm=65536,t=3,p=4,x=1',
      'm=65536,t=3,t=4',
      'm=2048=5,t=1,p=1',
      'm=65536,t=3',
    ])
      expect(() => configured(bad), bad).toThrow(message);
    expect(configured('p=1,t=2,m=19456').passwordHash).toEqual({ memoryKib: 19_456, passes: 2, lanes: 1 });
    expect(belowRecommendedCost(configured('m=1024,t=1,p=1').passwordHash)).toBe(true);
    expect(belowRecommendedCost(configured('m=19456,t=2,p=1').passwordHash)).toBe(false);
  });
});
