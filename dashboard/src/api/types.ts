import type { components, paths } from './openapi';

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
