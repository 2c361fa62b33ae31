import { z } from 'zod';
import { recordIdOf } from '../../engine/rows/index.js';
import type { EffectiveTable } from '../schema/provides.js';
import type { UndoStep } from './undo-store.js';

export const DATA_CHANGED = 'data.changed';

export const dataChangedSchema = z.strictObject({
  connectionId: z.string(),
  table: z.string(),
  recordIds: z.array(z.string()),
  op: z.enum(['create', 'update', 'delete', 'bulk', 'undo']),
});
export type DataChanged = z.infer<typeof dataChangedSchema>;

const REDACTED = '[redacted]';

/**
 * What the audit trail keeps of a write: per row, the columns an update set (before and after),
 * or the whole row created or deleted. Secret columns are replaced, never stored.
 */
export function changeDiff(connectionId: string, table: EffectiveTable, steps: readonly UndoStep[]) {
  const secret = new Set(table.columns.filter((c) => c.display.secret).map((c) => c.name));
  const pick = (row: Record<string, unknown> | null, columns: readonly string[] | null) => {
    if (!row) return null;
    const out: Record<string, unknown> = {};
    for (const name of columns ?? Object.keys(row)) out[name] = secret.has(name) ? REDACTED : row[name];
    return out;
  };
  return {
    connectionId,
    table: table.ref,
    changes: steps.map((s) => ({
      op: s.op,
      recordId: recordIdOf(table, (s.after ?? s.before)!),
      before: pick(s.before, s.op === 'update' ? s.columns : null),
      after: pick(s.after, s.op === 'update' ? s.columns : null),
    })),
  };
}
