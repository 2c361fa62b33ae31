import { useEffect, useState } from 'react';
import { getJson, type Liveness, type SetupState } from './api';

type Status = { state: 'loading' } | { state: 'ok'; version: string; setupOpen: boolean } | { state: 'down'; message: string };

/** Placeholder shell until the dashboard issue: shows that the API answers and whether setup is open. */
export function App() {
  const [status, setStatus] = useState<Status>({ state: 'loading' });
  useEffect(() => {
    Promise.all([getJson<Liveness>('/healthz'), getJson<SetupState>('/setup/state')])
      .then(([live, setup]) => setStatus({ state: 'ok', version: live.version, setupOpen: setup.data.open }))
      .catch((err: Error) => setStatus({ state: 'down', message: err.message }));
  }, []);
  return (
    <main className="shell">
      <h1>Admin</h1>
      <p>Your databases, your rules. The full dashboard is on its way.</p>
      {status.state === 'loading' && <p role="status">Checking the server…</p>}
      {status.state === 'ok' && (
        <p role="status" data-testid="api-status">
          API online · version {status.version} · {status.setupOpen ? 'setup is open' : 'setup is complete'}
        </p>
      )}
      {status.state === 'down' && (
        <p role="alert" data-testid="api-status">
          API unreachable: {status.message}
        </p>
      )}
      <p>
        <a href="/docs">API reference</a>
      </p>
    </main>
  );
}
