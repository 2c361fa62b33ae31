/**
 * Where one server spends more than the other, per request, from the CPU profiles the
 * public-list bench writes with BENCH_PROFILE=<dir> (ours.cpuprofile, bare.cpuprofile and
 * requests.json, the requests each profile covers). Self time per function, idle left out.
 *
 *   node --import tsx bench/lib/profile-diff.ts /tmp/prof            # by function
 *   node --import tsx bench/lib/profile-diff.ts /tmp/prof --by-file  # by file (node_modules by package)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const shortUrl = (url: string) => url.replace(/^.*node_modules\//, 'npm:').replace(/^file:\/\/.*?\/(kernel|plugins|bench)\//, '$1/');

function keyOf(frame: ProfileNode['callFrame'], byFile: boolean): string {
  const url = shortUrl(frame.url);
  if (!byFile) return `${frame.functionName || '(anonymous)'} ${url}`.trim();
  if (!url) return frame.functionName;
  if (url.startsWith('npm:'))
    return url
      .split('/')
      .slice(0, url.startsWith('npm:@') ? 2 : 1)
      .join('/');
  return url;
}

/** Microseconds of self time per request, by key. */
function perRequest(file: string, requests: number, byFile: boolean): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = frames.get(id)!;
    if (frame.functionName === '(idle)') return;
    const key = keyOf(frame, byFile);
    out.set(key, (out.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / requests);
  });
  return out;
}

const [dir, flag] = process.argv.slice(2);
if (!dir) throw new Error('usage: profile-diff.ts <BENCH_PROFILE dir> [--by-file]');
const requests = JSON.parse(readFileSync(join(dir, 'requests.json'), 'utf8')) as { ours: number; bare: number };
const ours = perRequest(join(dir, 'ours.cpuprofile'), requests.ours, flag === '--by-file');
const bare = perRequest(join(dir, 'bare.cpuprofile'), requests.bare, flag === '--by-file');
const rows = [...new Set([...ours.keys(), ...bare.keys()])]
  .map((key) => ({ key, ours: ours.get(key) ?? 0, bare: bare.get(key) ?? 0 }))
  .sort((a, b) => b.ours - b.bare - (a.ours - a.bare));
const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
console.log(`µs per request (self time; ${requests.ours} requests profiled on ours, ${requests.bare} on bare)\n`);
console.log('   ours    bare    diff  where');
for (const r of rows.slice(0, 40))
  console.log(`${r.ours.toFixed(1).padStart(7)} ${r.bare.toFixed(1).padStart(7)} ${(r.ours - r.bare).toFixed(1).padStart(7)}  ${r.key}`);
console.log(`${total(ours).toFixed(1).padStart(7)} ${total(bare).toFixed(1).padStart(7)} ${(total(ours) - total(bare)).toFixed(1).padStart(7)}  total`);
