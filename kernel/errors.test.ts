import { describe, expect, it } from 'vitest';
import { AppError, registerErrorCodes } from './errors.js';

describe('error codes', () => {
  it('keep one status and one message: a second declaration that differs is refused, the same one is not', () => {
    registerErrorCodes({ TEST_ONE_MEANING: { status: 409, message: 'One meaning.' } });
    expect(() => registerErrorCodes({ TEST_ONE_MEANING: { status: 409, message: 'One meaning.' } })).not.toThrow();
    expect(() => registerErrorCodes({ TEST_ONE_MEANING: { status: 409, message: 'Another wording.' } })).toThrow(/different messages/);
    expect(() => registerErrorCodes({ TEST_ONE_MEANING: { status: 400, message: 'One meaning.' } })).toThrow(/different statuses/);
    expect(new AppError('TEST_ONE_MEANING').message).toBe('One meaning.');
  });
});
