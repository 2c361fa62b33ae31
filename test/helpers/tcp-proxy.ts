import net from 'node:net';

/**
 * A loopback TCP proxy in front of a database, so a test can make the database "go away"
 * (drop every connection and refuse new ones) and come back, without touching the server.
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private up = true;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<number> {
    this.server = net.createServer((client) => {
      if (!this.up) {
        client.destroy();
        return;
      }
      const upstream = net.connect(this.targetPort, this.targetHost);
      this.sockets.add(client);
      this.sockets.add(upstream);
      const done = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', done).on('close', done);
      upstream.on('error', done).on('close', done);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((res) => this.server!.listen(0, '127.0.0.1', res));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Drops every open connection and refuses new ones. */
  down(): void {
    this.up = false;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.up = true;
  }

  async stop(): Promise<void> {
    this.down();
    await new Promise<void>((res) => (this.server ? this.server.close(() => res()) : res()));
  }
}
