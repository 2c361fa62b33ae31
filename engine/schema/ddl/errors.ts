import { registerErrorCodes } from '../../../kernel/errors.js';

export const DDL_ERRORS = {
  DDL_REFUSED: {
    status: 409,
    message: 'These tables cannot be changed as planned: the plan has conflicts, refusals, or destructive changes that were not allowed.',
  },
  DDL_FAILED: {
    status: 502,
    message: "The connection's database refused a table change; what had been done was undone.",
  },
} as const;

registerErrorCodes(DDL_ERRORS);
