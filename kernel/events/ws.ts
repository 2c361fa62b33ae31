import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import type { Principal } from '../identity/principal.js';
import type { Kernel } from '../kernel-services.js';
import { authenticate } from '../http/authenticate.js';

declare module 'fastify' {
  interface FastifyRequest {
    wsPrincipal?: Principal;
  }
}

/**
 * The realtime channel at `/ws`: authenticated by session cookie (with an Origin check, so
 * another site cannot open it with the user's cookie) or an API key. Refused before the
 * upgrade with the usual 401 envelope.
 */
export async function installWebSocket(app: FastifyInstance, kernel: Kernel): Promise<() => void> {
  let goingAway = () => undefined as void;
  // A scope of its own: @fastify/websocket hooks every request of the scope it is registered in.
  await app.register(async (scope) => {
    await mountSocket(scope, kernel);
    // At a drain (decisions K43): 1001 "going away", so clients reconnect to another replica.
    goingAway = () => {
      for (const client of scope.websocketServer.clients) client.close(1001, 'server shutting down');
    };
  });
  return () => goingAway();
}

async function mountSocket(app: FastifyInstance, kernel: Kernel): Promise<void> {
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  app.get(
    '/ws',
    {
      websocket: true,
      preValidation: async (req) => {
        const auth = await authenticate(req, kernel.principals, kernel.config);
        if (!auth) throw new AppError('AUTH_REQUIRED');
        req.wsPrincipal = auth.principal;
      },
    },
    (socket, req) => {
      const principal = req.wsPrincipal!;
      const unsubscribe = kernel.events.subscribe({
        principal,
        deliver: (event) => {
          if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(event));
        },
      });
      let alive = true;
      socket.on('pong', () => {
        alive = true;
      });
      // Each beat also re-checks the principal: a signed-out session, a suspended user or a
      // revoked key stops receiving at the next beat.
      const heartbeat = setInterval(() => {
        if (!alive) {
          socket.terminate();
          return;
        }
        alive = false;
        socket.ping();
        void kernel.identity.isStillValid(principal).then(
          (valid) => valid || socket.close(4401, 'session ended'),
          () => undefined,
        );
      }, kernel.events.heartbeatMs);
      socket.on('close', () => {
        clearInterval(heartbeat);
        unsubscribe();
      });
      socket.send(JSON.stringify({ kind: 'ready', at: kernel.now(), data: { userId: principal.userId } }));
    },
  );
}
