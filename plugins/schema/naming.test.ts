import { describe, expect, it } from 'vitest';
import { slugify } from '../pages/provides.js';
import { humanize, tableRef } from './naming.js';

describe('naming', () => {
  it('humanizes identifiers', () => {
    expect(humanize('order_items')).toBe('Order items');
    expect(humanize('createdAt')).toBe('Created at');
    expect(humanize('user_id')).toBe('User ID');
    expect(humanize('URLPath')).toBe('URL path');
    expect(humanize('id')).toBe('ID');
  });

  it('names a table by its bare name in the default namespace only', () => {
    expect(tableRef({ schema: null, name: 'orders' })).toBe('orders');
    expect(tableRef({ schema: 'public', name: 'orders' })).toBe('orders');
    expect(tableRef({ schema: 'sales', name: 'orders' })).toBe('sales.orders');
  });

  it('slugifies', () => {
    expect(slugify('Shop DB — Crème brûlée!')).toBe('shop-db-creme-brulee');
    expect(slugify('***')).toBe('page');
  });
});
