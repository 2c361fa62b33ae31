/** The dashboard talks only to the public REST API (seed: no private API exists for it). */
export async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(`/api/v1${path}`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  const body = (await res.json()) as T;
  if (!res.ok) throw Object.assign(new Error(`GET ${path} answered ${res.status}`), { body });
  return body;
}

export interface Liveness {
  ok: true;
  version: string;
  uptime: number;
}

export interface SetupState {
  data: { open: boolean };
}
