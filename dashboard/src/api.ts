/** The dashboard talks only to the public REST API (seed: no private API exists for it). */
export async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(`/api/v1${path}`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  // A proxy's error page is not JSON: report the status, not a parse error.
  const isJson = (res.headers.get('content-type') ?? '').includes('application/json');
  const body = isJson ? ((await res.json()) as T) : null;
  if (!res.ok || !isJson) throw Object.assign(new Error(`GET ${path} answered ${res.status}`), { body });
  return body as T;
}

export interface Liveness {
  ok: true;
  version: string;
  uptime: number;
}

export interface SetupState {
  data: { open: boolean };
}
