// The dev entry: what `svc-addon dev --allow-outbound <origin>` runs (with tsx) in place of
// kernel/main.ts. The same server, with the add-ons plugin built to let `ctx.fetch` reach the
// given origins (local mock servers) past the outbound list and the address checks. Outside
// kernel/ and plugins/ and no entry of scripts/build-server.mjs, so the server build never
// contains it and `npm start` has no way to turn it on (decisions AO40).
//
// First: it must run before any full collection (kernel/runtime/next-tick-shape.ts).
import '../kernel/runtime/next-tick-shape.js';
import { parseArgs } from 'node:util';
import { DevOriginInvalid, parseDevOrigin } from '../addons-sdk/src/cli/dev-outbound.js';
import { serve } from '../kernel/serve.js';
import { createAddonsPlugin } from '../plugins/add-ons/manifest.js';
import { firstPartyPlugins } from '../plugins/index.js';

/** The origins of `--allow-outbound` (repeatable), or null after printing why they are not. */
function allowedOrigins(argv: string[]): string[] | null {
  try {
    const { values } = parseArgs({ args: argv, strict: true, options: { 'allow-outbound': { type: 'string', multiple: true } } });
    return [...new Set((values['allow-outbound'] ?? []).map(parseDevOrigin))];
  } catch (err) {
    if (!(err instanceof DevOriginInvalid) && !(err instanceof TypeError)) throw err;
    process.stderr.write(`scripts/dev-instance.ts: ${err.message}\n`);
    return null;
  }
}

const origins = allowedOrigins(process.argv.slice(2));
if (origins === null) process.exit(2);
const addons = createAddonsPlugin({ devOutboundOrigins: origins });
const app = await serve(firstPartyPlugins.map((p) => (p.name === addons.name ? addons : p)));
if (origins.length)
  app.kernel.log.warn(
    { devOutboundOrigins: origins },
    `dev instance: add-ons' ctx.fetch reaches ${origins.join(', ')} past their outbound lists and the private-address checks`,
  );
