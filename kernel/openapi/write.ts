import { writeFileSync } from 'node:fs';
import { OPENAPI_FILE, publishedOpenApi } from './document.js';

/** `npm run openapi`: regenerates docs/openapi.json from the route tree. */
writeFileSync(OPENAPI_FILE, publishedOpenApi());
process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
