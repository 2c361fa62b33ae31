import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, createQueryClient } from './App';
import { bootstrapQuery } from './api/bootstrap';
import { startCatalogue } from './shell/prefs';
import './styles.css';

const queryClient = createQueryClient();
// GET /bootstrap goes beside the catalogue's requests, not after them.
void queryClient.prefetchQuery(bootstrapQuery);
// The first paint is in the locale to show (its shell strings fetched first, GET /i18n/bundle), not English then another.
void startCatalogue().finally(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App queryClient={queryClient} />
    </StrictMode>,
  ),
);
