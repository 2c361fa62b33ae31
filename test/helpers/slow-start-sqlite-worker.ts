/**
 * The SQLite statements thread (engine/sources/sqlite-worker.ts) starting 3 s late, as one does on
 * a loaded machine: engine/sources/sqlite-off-thread.test.ts checks that the start is not charged
 * to the statements sent meanwhile.
 */
export const START_DELAY_MS = 3000;
await new Promise((resolve) => setTimeout(resolve, START_DELAY_MS));
await import('../../engine/sources/sqlite-worker.js');
