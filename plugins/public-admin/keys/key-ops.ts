import type { z } from 'zod';
import { AppError, type ErrorIssue } from '../../../kernel/api.js';
import type { StoredKey } from './keys.js';
import type { PublicMethod } from '../provides.js';
import { storeForGrant } from '../scopes/scope-ops.js';
import type { createKeyBody } from './schemas.js';
import type { PublicAdminService } from '../service.js';

/**
 * POST /public-keys. Every grant must name an endpoint that exists and offers the methods; a
 * service-role endpoint goes to server keys only. Virtual endpoints granted here are stored.
 */
export async function createKey(
  service: PublicAdminService,
  body: z.infer<typeof createKeyBody>,
  createdBy: string | null,
): Promise<{ key: StoredKey; secret: string }> {
  const catalog = await service.catalog();
  const issues: ErrorIssue[] = [];
  const seen = new Set<string>();
  const picked = body.grants.map((g, i) => {
    const at = `body.grants.${i}`;
    const entry = catalog.byRef.get(g.ref);
    if (!entry) return void issues.push({ path: `${at}.ref`, code: 'unknown_ref', message: `No public endpoint ${g.ref}.` });
    if (seen.has(entry.def.ref)) issues.push({ path: `${at}.ref`, code: 'duplicate_ref', message: `${g.ref} is granted twice; list its methods once.` });
    seen.add(entry.def.ref);
    if (entry.def.serviceRole && body.kind === 'browser')
      issues.push({ path: `${at}.ref`, code: 'service_role', message: `${g.ref} is a service-role endpoint; only a server key may be granted it.` });
    g.methods.forEach((m, j) => {
      if (!entry.def.methods.includes(m)) issues.push({ path: `${at}.methods.${j}`, code: 'method_not_offered', message: `${g.ref} does not offer ${m}.` });
    });
    return { entry, methods: g.methods as PublicMethod[] };
  });
  if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
  const grants: Array<{ scopeId: string; methods: PublicMethod[] }> = [];
  for (const p of picked) grants.push({ scopeId: await storeForGrant(service, p!.entry), methods: p!.methods });
  const created = await service.keys.create({ name: body.name, kind: body.kind, expires: body.expires, grants, createdBy });
  service.invalidate();
  await service.announce('keys', created.key.id);
  return created;
}
