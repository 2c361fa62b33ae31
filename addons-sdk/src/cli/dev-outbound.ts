/**
 * `svc-addon dev --allow-outbound <origin>`: the origins a dev instance lets an add-on's
 * `ctx.fetch` reach past its `outbound` list and the address checks (a mock server on
 * 127.0.0.1 or on the local network). Read by the CLI and by the instance's dev entry
 * (scripts/dev-instance.ts), so both accept exactly the same values; the production server
 * never reads them (decisions AO40).
 */

export class DevOriginInvalid extends Error {
  override readonly name = 'DevOriginInvalid';
}

/**
 * `http://127.0.0.1:4010` as its origin (scheme, host and port; a default port is dropped, as
 * URL does): only http or https, no user or password, no path, query or fragment.
 */
export function parseDevOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DevOriginInvalid(`--allow-outbound ${value}: not a URL; give an origin such as http://127.0.0.1:4010`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DevOriginInvalid(`--allow-outbound ${value}: only http and https origins`);
  if (url.username || url.password) throw new DevOriginInvalid(`--allow-outbound ${value}: no user or password in the origin`);
  if (url.pathname !== '/' || url.search || url.hash || /[?#]/.test(value))
    throw new DevOriginInvalid(`--allow-outbound ${value}: an origin only (scheme, host, port), without a path; ${url.origin} allows every path on it`);
  return url.origin;
}
