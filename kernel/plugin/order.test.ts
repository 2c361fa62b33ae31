import { describe, expect, it } from 'vitest';
import { definePlugin } from './manifest.js';
import { orderPlugins } from './order.js';

const p = (name: string, requires: string[] = []) => definePlugin({ name, version: '1.0.0', requires });

describe('plugin load order', () => {
  it('loads each plugin after what it requires, keeping the given order otherwise', () => {
    const order = orderPlugins([p('users', ['auth', 'roles']), p('auth'), p('roles', ['auth']), p('health')]).map((x) => x.name);
    expect(order).toEqual(['auth', 'roles', 'users', 'health']);
  });

  it('refuses a dependency cycle, naming it', () => {
    expect(() => orderPlugins([p('aa', ['bb']), p('bb', ['cc']), p('cc', ['aa'])])).toThrow('plugin dependency cycle: aa -> bb -> cc -> aa');
  });

  it('refuses a missing dependency', () => {
    expect(() => orderPlugins([p('users', ['auth'])])).toThrow('plugin users requires plugin auth, which is not loaded');
  });

  it('refuses the same plugin twice', () => {
    expect(() => orderPlugins([p('users'), p('users')])).toThrow('plugin users is loaded twice');
  });
});
