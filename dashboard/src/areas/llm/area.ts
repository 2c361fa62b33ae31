import { lazyWithMessages, type Area } from '../area';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages('llm');

const Ask = lazy(() => import('./Ask').then((m) => ({ default: m.Ask })));
const AiSettings = lazy(() => import('./AiSettings').then((m) => ({ default: m.AiSettings })));

/** The AI assistant (issue 32 §4): asking on a connection, and its settings under /settings/ai. */
export const llmArea: Area = {
  nav: [{ path: '/ask', label: 'nav.ask', permission: 'llm.use' }],
  routes: [
    { path: '/ask', component: Ask },
    { path: '/settings/ai', component: AiSettings },
  ],
};
