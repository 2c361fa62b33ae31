import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, createQueryClient } from './App';
import { startCatalogue } from './shell/prefs';
import './styles.css';

// The first paint is in the locale to show (its shell strings fetched first, GET /i18n/bundle), not English then another.
void startCatalogue().finally(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App queryClient={createQueryClient()} />
    </StrictMode>,
  ),
);
