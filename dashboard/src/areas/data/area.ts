import type { Area } from '../area';

/** The grid of a table and a row's detail (reached from a connection's tables, not the main navigation). */
export const dataArea: Area = {
  nav: [],
  routes: [],
};
