/**
 * Child process for bench/healthz.ts: serves GET /api/v1/healthz on an ephemeral loopback port,
 * either from our real instance (`ours`) or from a bare fastify app answering the same body
 * (`bare`). It reports its URL over IPC, answers `cpu` with its CPU usage, and stops when the
 * parent says so or goes away (bench/lib/child.ts).
 */
import { bareHealthz, serveChild, startBare, startOurs } from './child.js';

export type TargetKind = 'ours' | 'bare';

const kind = process.argv[2] as TargetKind;
if (kind !== 'ours' && kind !== 'bare') throw new Error(`usage: healthz-target.ts ours|bare (got ${String(kind)})`);
await serveChild(kind, () => (kind === 'ours' ? startOurs() : startBare((app) => bareHealthz(app, '/api/v1/healthz'))));
