import { describe, expect, it } from 'vitest';
import { SecretBox } from './crypto.js';

describe('SecretBox', () => {
  const secret = 'x'.repeat(64);
  it('round-trips and never stores the plaintext', () => {
    const box = new SecretBox(secret, 'smtp');
    const sealed = box.encrypt('hunter2');
    expect(sealed).not.toContain('hunter2');
    expect(box.decrypt(sealed)).toBe('hunter2');
    expect(box.encrypt('hunter2')).not.toBe(sealed); // fresh IV each time
  });
  it('refuses a value sealed for another purpose, with another secret, or tampered', () => {
    const sealed = new SecretBox(secret, 'smtp').encrypt('hunter2');
    expect(() => new SecretBox(secret, 'totp').decrypt(sealed)).toThrow();
    expect(() => new SecretBox('y'.repeat(64), 'smtp').decrypt(sealed)).toThrow();
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(() => new SecretBox(secret, 'smtp').decrypt(tampered)).toThrow();
  });
});
