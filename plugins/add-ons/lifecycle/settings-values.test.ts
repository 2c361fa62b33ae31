import { describe, expect, it } from 'vitest';
import { settingsForm } from './settings-values.js';

describe('settingsForm: the settings schema a form is generated from', () => {
  it('keeps every rule of a field, marks required and secret ones, and never gives a secret default', () => {
    expect(
      settingsForm({
        type: 'object',
        properties: {
          tone: { type: 'string', title: 'Tone', enum: ['warm', 'dry'], default: 'warm' },
          seats: { type: 'integer', minimum: 1, maximum: 10, default: 4 },
          token: { type: 'string', secret: true, default: 'do-not-show', minLength: 8 },
          live: { type: 'boolean' },
        },
        required: ['token'],
      }),
    ).toEqual([
      { name: 'tone', type: 'string', title: 'Tone', enum: ['warm', 'dry'], default: 'warm', required: false, secret: false },
      { name: 'seats', type: 'integer', minimum: 1, maximum: 10, default: 4, required: false, secret: false },
      { name: 'token', type: 'string', minLength: 8, required: true, secret: true },
      { name: 'live', type: 'boolean', required: false, secret: false },
    ]);
  });
});
