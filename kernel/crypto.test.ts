import { describe, expect, it } from 'vitest';
import { SecretBox, TokenSigner } from './crypto.js';

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

describe('TokenSigner', () => {
  const secret = 'x'.repeat(64);
  const signer = new TokenSigner(secret, 'rows.cursor');
  it('opens what it signed, for the same context only', () => {
    const token = signer.sign('eyJzIjoiIn0', 'public.products');
    expect(token.startsWith('eyJzIjoiIn0.')).toBe(true);
    expect(signer.open(token, 'public.products')).toBe('eyJzIjoiIn0');
    expect(signer.open(token, 'public.orders')).toBeNull();
    expect(new TokenSigner(secret, 'rows.cursor').open(token, 'public.products')).toBe('eyJzIjoiIn0');
  });
  it('refuses a token altered anywhere, truncated, unsigned, or made with another secret or purpose', () => {
    const token = signer.sign('eyJzIjoiIn0');
    const flip = (i: number) => token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    for (let i = 0; i < token.length; i++) if (token[i] !== '.') expect(signer.open(flip(i))).toBeNull();
    for (const bad of ['', '.', 'eyJzIjoiIn0', token.slice(0, -1), `${token}A`, `x${token}`]) expect(signer.open(bad)).toBeNull();
    expect(new TokenSigner('y'.repeat(64), 'rows.cursor').open(token)).toBeNull();
    expect(new TokenSigner(secret, 'other').open(token)).toBeNull();
  });
});
