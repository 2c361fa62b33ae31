import { z } from 'zod';
import type { CatalogEntry } from '../endpoints/catalog.js';
import { publicMethod, wireDefinitionShape } from '../endpoints/definition.js';

export const scopeSchema = z
  .strictObject({
    id: z.string().nullable().describe('null while the endpoint is virtual (generated, never granted or edited)'),
    ref: z.string(),
    connectionId: z.string(),
    table: z.string().describe('the table ref (SC2)'),
    virtual: z.boolean(),
    generated: z.boolean().describe("the table's generated endpoint (stored or not), as opposed to an extra endpoint"),
    edited: z.boolean(),
    ...wireDefinitionShape,
    pk: z.array(z.string()),
    keyFill: z.enum(['database', 'uuid']).nullable(),
    addonKey: z.string().nullable(),
    offered: z.array(publicMethod).describe('the methods the table could offer this endpoint as defined'),
    problems: z.array(
      z.strictObject({ reason: z.enum(['table-missing', 'column-missing', 'column-secret', 'column-personal']), column: z.string().optional() }),
    ),
    createdAt: z.number().nullable(),
    updatedAt: z.number().nullable(),
  })
  .meta({ id: 'PublicScope' });
export type PublicScope = z.infer<typeof scopeSchema>;

export function toScope(entry: CatalogEntry, offered: PublicScope['offered']): PublicScope {
  const { allowCascade, ...d } = entry.def;
  return {
    ...d,
    allow_cascade: allowCascade,
    edited: entry.edited,
    offered,
    problems: entry.problems,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
  };
}
