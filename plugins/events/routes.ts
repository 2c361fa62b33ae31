import { HANDLED, rawResponse, route, SIGNED_IN } from '../../kernel/api.js';

export const eventRoutes = [
  route({
    method: 'GET',
    url: '/events',
    summary: 'Server-sent events (fallback when a WebSocket cannot be established)',
    description: 'Each event is `event: <kind>` with `data: {kind, at, data}`; a comment line every 25 s keeps proxies from closing the stream.',
    permission: SIGNED_IN,
    schema: { response: { 200: rawResponse('text/event-stream', 'A stream of events the caller may read') } },
    handler: ({ kernel, principal, request, reply }) => {
      reply.hijack();
      const res = reply.raw;
      // A hijacked reply drops what onRequest hooks set on it (the CORS headers for a listed origin).
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-content-type-options': 'nosniff',
        'x-request-id': request.id,
      });
      // fastify answers HEAD with this handler too: Node drops writes to a HEAD response without
      // ever sending its headers, so the request would hang holding a subscription.
      if (request.method === 'HEAD') {
        res.end();
        return HANDLED;
      }
      res.write(`retry: 3000\n: ready\n\n`);
      const unsubscribe = kernel.events.subscribe({
        principal: principal!,
        deliver: (event) => {
          res.write(`event: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`);
        },
      });
      // Each beat also re-checks the principal: a signed-out session, a suspended user or a
      // revoked key ends the stream at the next beat.
      const heartbeat = setInterval(() => {
        res.write(`: ping\n\n`);
        void kernel.identity.isStillValid(principal!).then(
          (valid) => valid || res.end(),
          () => undefined,
        );
      }, kernel.events.heartbeatMs);
      const stop = () => {
        clearInterval(heartbeat);
        unsubscribe();
      };
      request.raw.on('close', stop);
      res.on('close', stop);
      return HANDLED;
    },
  }),
];
