import type { Area } from '../area';

/** Imports, exports and the jobs page. */
export const transferArea: Area = {
  nav: [],
  routes: [],
};
