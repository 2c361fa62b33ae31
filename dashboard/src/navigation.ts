import { navigate } from 'wouter/use-browser-location';

/** Screens a signed-out person may see; a lost session never sends anyone away from them. */
export const PUBLIC_PATHS = new Set(['/sign-in', '/forgot-password', '/reset-password', '/accept-invite', '/setup']);

/** A `next` target only ever names a path of this app (no other origin, no protocol-relative URL). */
export function safeNext(raw: string | null): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return '/';
  return raw;
}

/** To sign-in, remembering where the person was so sign-in brings them back. */
export function goToSignIn(reason: 'required' | 'ended'): void {
  const { pathname, search } = window.location;
  if (PUBLIC_PATHS.has(pathname)) return;
  const params = new URLSearchParams();
  const here = pathname + search;
  if (here !== '/') params.set('next', here);
  if (reason === 'ended') params.set('ended', '1');
  const query = params.toString();
  navigate(query ? `/sign-in?${query}` : '/sign-in', { replace: true });
}

export { navigate };
