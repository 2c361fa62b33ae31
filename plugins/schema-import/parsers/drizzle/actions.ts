import type ts from 'typescript';
import type { ReferentialAction } from '../../../../engine/schema/model.js';
import type { DrizzleReader } from './reader.js';

// Kept out of reader.ts: columns.ts and table-options.ts call it and the reader loads them, so
// importing it from the reader would be a runtime cycle (test/boundaries.test.ts).

const ACTIONS: Record<string, ReferentialAction> = {
  cascade: 'cascade',
  restrict: 'restrict',
  'no action': 'no action',
  'set null': 'set null',
  'set default': 'set default',
};

/** `onDelete: 'cascade'` and the like, as the model spells actions. */
export function referentialAction(r: DrizzleReader, v: unknown, node: ts.Node | undefined): ReferentialAction {
  if (v === undefined) return 'no action';
  if (typeof v === 'string' && ACTIONS[v]) return ACTIONS[v]!;
  return r.fail(node!, `onDelete/onUpdate must be 'cascade', 'restrict', 'no action', 'set null' or 'set default'`);
}
