import type { Area } from '../areas/area';
import { lazyScreen } from '../areas/lazy-screen';

const Home = lazyScreen(() => import('./Home').then((m) => ({ default: m.Home })));

/**
 * The shell's own screen, declared as an area's are: the home page. Its strings are the shell's
 * (in the first load), so only its code is loaded, through lazyScreen (React's lazy() would hold it
 * back 300 ms behind its loading line). "Not found" is App.tsx's fallback, drawn when
 * no route matches.
 */
export const shellArea: Area = {
  nav: [],
  routes: [{ path: '/', component: Home }],
};
