/**
 * The measuring loop the comparing benches share: contenders loaded in mirrored order (A B B A,
 * or A B C C B A for three) so a machine that slows down or speeds up over the run weighs on
 * each of them alike, each measured run after a warm-up on the same server; then their medians
 * (the issue-12 method: one run disturbed by the machine does not move them) and the ratios.
 */
import { table, type LoadResult } from './harness.js';

export interface Contender {
  name: string;
  /** Loads this contender's server for `seconds` (autocannon in this process). */
  load(seconds: number): Promise<LoadResult>;
}

export interface Summary {
  /** Medians over the contender's measured runs. */
  rps: number;
  p99: number;
  /** Server CPU per request, µs. */
  cpu: number;
}

export interface AbbaRuns<C extends Contender> {
  runs: { contender: C; result: LoadResult }[];
  /** Requests each contender answered, warm-ups included (what a profile of its server covers). */
  requests: Map<C, number>;
  summary(c: C): Summary;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * `repeat` passes of the contenders in order and then in reverse, each a `warmup` s load and a
 * `duration` s measured one, printing a line per run. Any failed request (non-2xx, error,
 * timeout) makes the run invalid: it throws. A slow result never does.
 */
export async function abba<C extends Contender>(contenders: C[], opts: { repeat: number; warmup: number; duration: number }): Promise<AbbaRuns<C>> {
  const runs: { contender: C; result: LoadResult }[] = [];
  const requests = new Map<C, number>(contenders.map((c) => [c, 0]));
  const width = Math.max(4, ...contenders.map((c) => c.name.length));
  for (const contender of Array.from({ length: opts.repeat }, () => [...contenders, ...[...contenders].reverse()]).flat()) {
    const warm = await contender.load(opts.warmup);
    const result = await contender.load(opts.duration);
    requests.set(contender, requests.get(contender)! + warm.total + result.total);
    if (result.failures > 0) throw new Error(`${contender.name}: ${result.failures} failed requests (non-2xx, errors or timeouts): the run is not valid`);
    runs.push({ contender, result });
    console.log(
      `  ${contender.name.padEnd(width)} ${Math.round(result.rps)} req/s, p99 ${result.p99} ms, ${result.cpuPerRequest.toFixed(1)} µs server CPU per request`,
    );
  }
  return {
    runs,
    requests,
    summary(c) {
      const mine = runs.filter((r) => r.contender === c).map((r) => r.result);
      return { rps: median(mine.map((r) => r.rps)), p99: median(mine.map((r) => r.p99)), cpu: median(mine.map((r) => r.cpuPerRequest)) };
    },
  };
}

/** Every run, then each contender's medians. */
export function runsTable<C extends Contender>(measured: AbbaRuns<C>, contenders: C[]): string {
  const rows = measured.runs.map(({ contender, result }, i) => [
    `${i + 1}. ${contender.name}`,
    Math.round(result.rps).toString(),
    result.p99.toString(),
    result.cpuPerRequest.toFixed(1),
    result.total.toString(),
  ]);
  for (const c of contenders) {
    const s = measured.summary(c);
    rows.push([`median ${c.name}`, Math.round(s.rps).toString(), s.p99.toFixed(1), s.cpu.toFixed(1)]);
  }
  return table(['run', 'req/s', 'p99 ms', 'server µs/req', 'requests'], rows);
}

/**
 * ours/bare in req/s (against `goal` unless it is null), and bare/ours in server CPU per request;
 * figures from column `width` at least (to line up several pairs).
 */
export function ratioLines(ours: { name: string; summary: Summary }, bare: { name: string; summary: Summary }, goal: number | null, width = 0): string {
  const rpsLabel = `ratio ${ours.name}/${bare.name}, req/s:`;
  const cpuLabel = `ratio ${bare.name}/${ours.name}, server CPU/req:`;
  const column = Math.max(width, rpsLabel.length + 2, cpuLabel.length + 2);
  const ratio = ours.summary.rps / bare.summary.rps;
  return [
    `${rpsLabel.padEnd(column)}${ratio.toFixed(2)}` + (goal === null ? '' : ` (goal >= ${goal}) ${ratio >= goal ? 'MET' : 'BELOW GOAL'}`),
    `${cpuLabel.padEnd(column)}${(bare.summary.cpu / ours.summary.cpu).toFixed(2)} (the same question, less sensitive to a busy machine)`,
  ].join('\n');
}

/** The runs table and the two ratios of a pair measured alone (the first contender against the second). */
export function pairReport<C extends Contender>(measured: AbbaRuns<C>, pair: [C, C], goal: number | null): string {
  const [ours, bare] = pair.map((c) => ({ name: c.name, summary: measured.summary(c) }));
  return `\n${runsTable(measured, pair)}\n\n${ratioLines(ours!, bare!, goal)}`;
}
