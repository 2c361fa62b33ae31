/** What every bench reads from its environment and prints about the machine before it measures. */
import { cpus, loadavg } from 'node:os';

/** The environment variable `name` as a whole number >= 1, or `fallback` when it is unset or empty. */
export function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer (got "${raw}")`);
  return n;
}

/** Cores, CPU model, node and the load average, with a warning when the machine is busy, then a blank line. */
export function printMachine(): void {
  const cores = cpus().length;
  const [load1 = 0] = loadavg();
  console.log(`machine: ${cores} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, load average ${load1.toFixed(1)}`);
  if (load1 > cores / 2) console.log(`!!! the machine is busy (load ${load1.toFixed(1)} on ${cores} cores): expect noisy numbers, compare the CPU column`);
  console.log('');
}
