// First: it must run before any full collection (kernel/runtime/next-tick-shape.ts).
import './runtime/next-tick-shape.js';
import { serve } from './serve.js';
import { firstPartyPlugins } from '../plugins/index.js';

/** `npm start`: one process serving the dashboard and the API, with the first-party plugins as they are. */
void serve(firstPartyPlugins);
