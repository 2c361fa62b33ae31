import type { components, paths } from './openapi';
import type { FilterOp } from './filter-ops';

/** The contract's paths without their `/api/v1` prefix: the client's base URL carries it. */
export type ApiPaths = { [K in keyof paths as K extends `/api/v1${infer Rest}` ? Rest : never]: paths[K] };
export type Schemas = components['schemas'];
export type User = Schemas['User'];
export type ErrorIssue = NonNullable<Schemas['Error']['error']['issues']>[number];

/** The JSON body a path takes with a method: `RequestBody<'/connections', 'post'>`. */
export type RequestBody<P extends keyof ApiPaths, M extends 'post' | 'put' | 'patch'> = ApiPaths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
/** The dashboard's list of filter operators is the one the API documents (an endpoint's default filters take every one). */
export const filterOpsMatchTheApi: SameKeys<FilterOp, Schemas['PublicScope']['filters'][number]['op']> = true;
