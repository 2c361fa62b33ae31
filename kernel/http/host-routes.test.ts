import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HostRoutes } from './host-routes.js';

const req = (host: string | undefined, url: string) => ({ url, headers: host === undefined ? {} : { host } }) as IncomingMessage;

describe('host routes (D28 mapped domains)', () => {
  const routes = new HostRoutes();
  routes.replace([
    { host: 'book.example', owner: 'table-booking', base: '/api/v1/add-ons/table-booking/bundle/widget' },
    { host: 'shop.test:4000', owner: 'shop', base: '/api/v1/add-ons/shop/bundle/page' },
  ]);

  it('leaves every URL alone while nothing is mapped, and on unmapped hosts', () => {
    expect(new HostRoutes().rewrite(req('book.example', '/api/v1/users'))).toBe('/api/v1/users');
    expect(routes.rewrite(req('127.0.0.1:3000', '/api/v1/users'))).toBe('/api/v1/users');
    expect(routes.rewrite(req(undefined, '/'))).toBe('/');
    expect(routes.rewrite(req('[::1]:4000', '/'))).toBe('/');
  });

  it('matches a name mapped without a port on any port, one mapped with a port on that port only, case-insensitively', () => {
    expect(routes.match('book.example')?.owner).toBe('table-booking');
    expect(routes.match('Book.Example:8080')?.owner).toBe('table-booking');
    expect(routes.match('shop.test:4000')?.owner).toBe('shop');
    expect(routes.match('shop.test:4001')).toBeNull();
    expect(routes.match('shop.test')).toBeNull();
    expect(routes.match('www.book.example')).toBeNull();
  });

  it('sends the public API through and everything else under the surface', () => {
    const on = (url: string) => routes.rewrite(req('book.example', url));
    expect(on('/api/v1/public/records/x?limit=1')).toBe('/api/v1/public/records/x?limit=1');
    expect(on('/')).toBe('/api/v1/add-ons/table-booking/bundle/widget');
    expect(on('/?utm=x')).toBe('/api/v1/add-ons/table-booking/bundle/widget?utm=x');
    expect(on('/widget.js')).toBe('/api/v1/add-ons/table-booking/bundle/widget/widget.js');
    expect(on('/api/v1/users')).toBe('/api/v1/add-ons/table-booking/bundle/widget/api/v1/users');
    expect(on('/api/v1/public')).toBe('/api/v1/add-ons/table-booking/bundle/widget/api/v1/public');
  });
});
