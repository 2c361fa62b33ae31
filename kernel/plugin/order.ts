import type { PluginDefinition } from './manifest.js';

/**
 * Orders plugins so each loads after everything it requires. Stops with one line naming the
 * missing dependency or the cycle. Ties keep the given order, so loading is deterministic.
 */
export function orderPlugins(plugins: readonly PluginDefinition[]): PluginDefinition[] {
  const byName = new Map<string, PluginDefinition>();
  for (const p of plugins) {
    if (byName.has(p.name)) throw new Error(`plugin ${p.name} is loaded twice`);
    byName.set(p.name, p);
  }
  for (const p of plugins) {
    for (const dep of p.requires ?? []) {
      if (!byName.has(dep)) throw new Error(`plugin ${p.name} requires plugin ${dep}, which is not loaded`);
    }
  }
  const ordered: PluginDefinition[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: PluginDefinition, path: string[]): void => {
    const s = state.get(p.name);
    if (s === 'done') return;
    if (s === 'visiting') {
      const start = path.indexOf(p.name);
      throw new Error(`plugin dependency cycle: ${[...path.slice(start), p.name].join(' -> ')}`);
    }
    state.set(p.name, 'visiting');
    for (const dep of p.requires ?? []) visit(byName.get(dep)!, [...path, p.name]);
    state.set(p.name, 'done');
    ordered.push(p);
  };
  for (const p of plugins) visit(p, []);
  return ordered;
}
