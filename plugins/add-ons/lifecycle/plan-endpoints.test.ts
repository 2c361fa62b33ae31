import { describe, expect, it } from 'vitest';
import { endpointChanges } from './plan.js';

type Endpoint = Parameters<typeof endpointChanges>[0];
const endpoint = (e: Record<string, unknown>) => ({ ref: 'bookings', table: 'bookings', methods: ['GET'], ...e }) as unknown as Endpoint;

describe("an upgrade's endpoint changes", () => {
  it('are none for the same definition, however it is written', () => {
    expect(endpointChanges(endpoint({ writable: ['a', 'b'], defaults: { x: 1, y: 2 } }), endpoint({ defaults: { y: 2, x: 1 }, writable: ['a', 'b'] }))).toEqual(
      [],
    );
  });

  it('name each field that differs, the table included, in name order', () => {
    expect(
      endpointChanges(
        endpoint({ writable: ['a'], filterable: ['a'] }),
        endpoint({ table: 'guests', methods: ['GET', 'POST'], writable: ['a', 'b'], filterable: ['a'], searchable: ['a'] }),
      ),
    ).toEqual(['methods', 'searchable', 'table', 'writable']);
    // A field removed is a change too.
    expect(endpointChanges(endpoint({ sensitive: ['phone'] }), endpoint({}))).toEqual(['sensitive']);
  });
});
