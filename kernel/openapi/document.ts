import { firstPartyPlugins } from '../../plugins/index.js';
import { buildRouteTree } from '../plugin/route-tree.js';
import { generateOpenApi, openApiInfo } from './generate.js';
import { projectPath } from '../paths.js';

export const OPENAPI_FILE = projectPath('docs', 'openapi.json');

/** The published document: the first-party route tree, serialised the way docs/openapi.json stores it. */
export function publishedOpenApi(): string {
  return JSON.stringify(generateOpenApi(buildRouteTree(firstPartyPlugins).routes, openApiInfo()), null, 2) + '\n';
}
