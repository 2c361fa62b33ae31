import { AppError } from '../../kernel/api.js';
import { RowInputError, StatementCancelled, type RowDialect } from '../../engine/rows/index.js';

export const DATA_ERRORS = {
  CONNECTION_READ_ONLY: { status: 409, message: 'This connection is read-only; rows cannot be written through it.' },
  TABLE_READ_ONLY: { status: 409, message: 'Rows of this table cannot be written: it is a view or has no primary key.' },
  DATA_REFUSED: { status: 400, message: 'The database refused these values.' },
  SCHEMA_OUT_OF_DATE: {
    status: 409,
    message: 'The database no longer matches its last introspection (a table or column is missing); introspect the connection again.',
  },
  UNDO_EXPIRED: { status: 409, message: 'This undo token has expired (undo is possible for 10 minutes after a write).' },
  UNDO_ALREADY_USED: { status: 409, message: 'This undo token has already been used.' },
  // 499 (a client that closed its request, as proxies log it): nobody reads this answer, the log does.
  REQUEST_CANCELLED: { status: 499, message: 'The client went away before the rows were read; the statement was cancelled.' },
};

/** Reads: the row code's refusals and a changed database, in the API's words. */
export function fromRead(d: RowDialect, err: unknown): unknown {
  if (err instanceof RowInputError) return validation(err);
  if (err instanceof StatementCancelled) return new AppError('REQUEST_CANCELLED');
  if (!(err instanceof AppError) && d.missingObject(err)) return new AppError('SCHEMA_OUT_OF_DATE');
  return err;
}

export function validation(err: RowInputError): AppError {
  return new AppError('VALIDATION_FAILED', { issues: err.issues.map((i) => ({ path: i.path, code: 'custom', message: i.message })) });
}

export function tableNotFound(): AppError {
  return new AppError('NOT_FOUND', { message: 'No such table on this connection.' });
}

export function rowNotFound(index?: number): AppError {
  return new AppError('NOT_FOUND', { message: 'No row with this id.', ...(index === undefined ? {} : { params: { index } }) });
}

/**
 * A database refusal → the API's words: a duplicate key or a foreign key is a conflict with
 * other rows (409); anything else about the values is a 400. Other errors (a lost connection,
 * a bug) pass through untouched so the connections plugin can classify them.
 */
export function fromDatabase(d: RowDialect, err: unknown, index?: number): unknown {
  if (err instanceof RowInputError) return validation(err);
  if (err instanceof AppError) return err;
  if (d.missingObject(err)) return new AppError('SCHEMA_OUT_OF_DATE');
  const failure = d.writeFailure(err);
  if (!failure) return err;
  const params = { reason: failure.reason, constraint: failure.constraint, ...(index === undefined ? {} : { index }) };
  if (failure.reason === 'unique') return new AppError('CONFLICT', { message: 'Another row already has this value.', params });
  if (failure.reason === 'foreign-key')
    return new AppError('CONFLICT', { message: 'A foreign key refuses this: the row it names is missing, or other rows still point at this one.', params });
  return new AppError('DATA_REFUSED', { params });
}
