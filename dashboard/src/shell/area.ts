import { lazy } from 'react';
import type { Area } from '../areas/area';

const Home = lazy(() => import('./Home').then((m) => ({ default: m.Home })));

/**
 * The shell's own screen, declared as an area's are: the home page. Its strings are the shell's
 * (in the first load), so React's lazy() suffices. "Not found" is App.tsx's fallback, drawn when
 * no route matches.
 */
export const shellArea: Area = {
  nav: [],
  routes: [{ path: '/', component: Home }],
};
