import type { FastifyRequest } from 'fastify';
import { recordIdOf } from '../../../engine/rows/index.js';
import type { Opened } from '../access.js';
import type { PublicApi } from '../service.js';
import { isSingleAddress } from './address.js';
import { acceptLanguage, sendConfirmation, templateLocale } from './confirmation.js';
import { instantOfWire } from './times.js';

/**
 * Where the manage link points: the page that booked (its Referer, when on the calling origin),
 * else the calling origin; a server key's booking links to SVC_BASE_URL or the first listed origin.
 */
function linkBase(api: PublicApi, req: FastifyRequest, origin: string | null): string | null {
  const referer = req.headers.referer;
  if (origin) {
    try {
      if (referer && new URL(referer).origin === origin) return referer;
    } catch {
      // an unreadable Referer: the origin will do
    }
    return `${origin}/`;
  }
  const fallback = api.kernel.config.baseUrl ?? api.kernel.config.publicApiOrigins[0];
  return fallback ? `${fallback}/` : null;
}

/** The confirmation of a booking just created, when the row holds an e-mail address. */
export function confirmBooking(api: PublicApi, req: FastifyRequest, opened: Opened, row: Record<string, unknown>): void {
  const rules = opened.endpoint.booking;
  if (!rules?.emailColumn) return;
  const to = row[rules.emailColumn];
  const at = instantOfWire(row[rules.timeColumn]);
  const base = linkBase(api, req, opened.caller.origin);
  // Checked again here: a trigger or default may have changed what the write checked.
  if (!isSingleAddress(to) || at === null || base === null) return;
  const locale = (rules.localeColumn ? templateLocale(String(row[rules.localeColumn] ?? '')) : null) ?? acceptLanguage(req.headers['accept-language']) ?? 'en';
  const code = rules.codeColumn && row[rules.codeColumn] != null ? String(row[rules.codeColumn]) : (recordIdOf(opened.table, row) ?? '');
  const party = rules.partyColumn ? Number(row[rules.partyColumn] ?? 1) : 1;
  sendConfirmation(api.kernel, rules, opened.endpoint.timeZone, { to, locale, at, code, party, base });
}
