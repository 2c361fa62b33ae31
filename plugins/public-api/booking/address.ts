import { z } from 'zod';

/**
 * One plain e-mail address, as the kernel's own e-mail fields take it: no display name, no list,
 * no spaces. Mail transports read `a@x, b@y` as two recipients, so a booking's e-mail column
 * must hold exactly one address before a confirmation may go to it.
 */
const address = z.email().max(320);

export function isSingleAddress(v: unknown): v is string {
  return typeof v === 'string' && address.safeParse(v).success;
}
