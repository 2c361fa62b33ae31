import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OPENAPI_FILE, publishedOpenApi } from './document.js';

/** `npm run openapi`: regenerates docs/openapi.json from the route tree. */
writeFileSync(OPENAPI_FILE, publishedOpenApi());
process.stdout.write(`wrote ${fileURLToPath(OPENAPI_FILE)}\n`);
