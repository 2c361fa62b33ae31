import { AsyncResource } from 'node:async_hooks';

/**
 * Keeps the hidden classes of `process.nextTick`'s records alive for the life of the process
 * (decisions K38).
 *
 * Node 20 makes every tick a literal with computed keys, `{ [async_id_symbol], [trigger_async_id_symbol],
 * callback, args }`. V8 remembers, per key of such a literal, the one hidden class it saw, and
 * when a later object arrives with another hidden class it gives up on that key for good (it goes
 * megamorphic: no polymorphic step in between), and every later tick defines its keys through
 * the runtime: 200–300 ns a tick instead of 40. The hidden classes of tick records die with the
 * records, so a full collection that happens while no tick is pending (the idle collector's, or
 * one during start) is enough: the next tick builds fresh ones and the feedback is lost. Streams
 * call `nextTick` about eight times a request, so this was ~3 µs of every request.
 *
 * One object of the same shape, built the same way and held from the global object, holds those
 * hidden classes for good. It must be made before the first full collection, so `kernel/main.ts`
 * imports this first.
 */
function tickShapedObject(): object | null {
  const symbols = Object.getOwnPropertySymbols(new AsyncResource('next-tick-shape'));
  const asyncId = symbols.find((s) => s.description === 'async_id_symbol');
  const triggerAsyncId = symbols.find((s) => s.description === 'trigger_async_id_symbol');
  if (!asyncId || !triggerAsyncId) return null;
  // Ids are doubles (Node keeps them in a Float64Array): a small integer here would give the
  // first field another representation, and a later double would replace the hidden class again.
  return { [asyncId]: 0.5, [triggerAsyncId]: 0.5, callback: tickShapedObject, args: undefined };
}

/** Where the object is held: a module's own variable would be freed once the module has run. */
const NEXT_TICK_SHAPE = Symbol.for('svc-admin.nextTickShape');

/** Makes and holds the object, once; null when this Node's ticks carry other keys. */
export function pinNextTickShape(): object | null {
  const held = globalThis as { [NEXT_TICK_SHAPE]?: object | null };
  if (held[NEXT_TICK_SHAPE] === undefined) Object.defineProperty(held, NEXT_TICK_SHAPE, { value: tickShapedObject() });
  return held[NEXT_TICK_SHAPE] ?? null;
}

pinNextTickShape();
