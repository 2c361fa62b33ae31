import type { EventDeclaration } from '../plugin/manifest.js';
import type { Principal } from '../identity/principal.js';
import type { Logger } from '../logger.js';

/** What a client receives (D14). */
export interface EventEnvelope {
  kind: string;
  at: number;
  data: unknown;
}

/** Narrows who receives an event beyond its kind's permission. */
export interface Audience {
  userIds?: string[];
  /**
   * Only subscribers whose grants of `permission` reach this table (D9 scopes): an event about
   * rows goes to those who may read that table, not to every holder of the permission.
   */
  grant?: { permission: string; connectionId: string; table: string };
}

export interface BusMessage extends EventEnvelope {
  audience?: Audience;
}

export interface Subscription {
  principal: Principal;
  deliver(event: EventEnvelope): void;
}

/** Carries events to the other replicas (LISTEN/NOTIFY on a PostgreSQL meta store). */
export interface EventBridge {
  forward(message: BusMessage): Promise<void>;
  close(): Promise<void>;
}

export class EventBus {
  private readonly kinds = new Map<string, EventDeclaration & { plugin: string }>();
  private readonly subscribers = new Set<Subscription>();
  /** Server-side listeners by kind (`listen`): caches that follow other replicas' changes. */
  private readonly listeners = new Map<string, Set<(event: EventEnvelope) => void>>();
  private bridge: EventBridge | null = null;

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    /** How often transports ping and re-check that the subscriber may still listen. */
    readonly heartbeatMs: number = HEARTBEAT_MS,
  ) {}

  declare(plugin: string, kind: string, decl: EventDeclaration): void {
    const prior = this.kinds.get(kind);
    if (prior) throw new Error(`event kind ${kind} is declared by both ${prior.plugin} and ${plugin}`);
    this.kinds.set(kind, { ...decl, plugin });
  }

  declared(): ReadonlyMap<string, EventDeclaration & { plugin: string }> {
    return this.kinds;
  }

  /** When another instance's event was last heard on the bridge (a relocation refuses while replicas share the store, MR1). */
  otherInstanceSeenAt: number | null = null;

  attachBridge(bridge: EventBridge): void {
    this.bridge = bridge;
  }

  /** Replaces the bridge (a relocation moved the store), closing the one before. */
  async replaceBridge(bridge: EventBridge | null): Promise<void> {
    const old = this.bridge;
    this.bridge = bridge;
    if (old && old !== bridge) await old.close().catch(() => undefined);
  }

  /** Validates against the declared schema, delivers locally, then to the other replicas. */
  async publish(kind: string, data: unknown, audience?: Audience): Promise<void> {
    const decl = this.kinds.get(kind);
    if (!decl) throw new Error(`event kind ${kind} is not declared by any plugin`);
    const parsed = decl.schema.parse(data);
    const message: BusMessage = { kind, at: this.now(), data: parsed, ...(audience ? { audience } : {}) };
    this.deliverLocal(message);
    if (this.bridge) {
      try {
        await this.bridge.forward(message);
      } catch (err) {
        this.log.warn({ kind, err: { message: (err as Error).message } }, 'event not forwarded to other replicas');
      }
    }
  }

  /** Delivery for a message that arrived from another replica. */
  deliverLocal(message: BusMessage): void {
    const decl = this.kinds.get(message.kind);
    if (!decl) return;
    const envelope: EventEnvelope = { kind: message.kind, at: message.at, data: message.data };
    for (const on of this.listeners.get(message.kind) ?? []) {
      try {
        on(envelope);
      } catch (err) {
        this.log.warn({ kind: message.kind, err: { message: (err as Error).message } }, 'event listener failed');
      }
    }
    for (const sub of this.subscribers) {
      if (!sub.principal.permissions.has(decl.permission)) continue;
      const users = message.audience?.userIds;
      if (users && (!sub.principal.userId || !users.includes(sub.principal.userId))) continue;
      const grant = message.audience?.grant;
      if (grant && sub.principal.permissions.grantOn(grant.permission, grant.connectionId, grant.table) === null) continue;
      try {
        sub.deliver(envelope);
      } catch (err) {
        this.log.warn({ kind: message.kind, err: { message: (err as Error).message } }, 'event subscriber failed');
      }
    }
  }

  subscribe(sub: Subscription): () => void {
    this.subscribers.add(sub);
    return () => this.subscribers.delete(sub);
  }

  /**
   * Every event of `kinds`, from this replica and the others, whatever its audience: for the
   * server's own caches (a page list, a search index), never for a client. Answers the undo.
   */
  listen(kinds: readonly string[], on: (event: EventEnvelope) => void): () => void {
    for (const kind of kinds) {
      let set = this.listeners.get(kind);
      if (!set) this.listeners.set(kind, (set = new Set()));
      set.add(on);
    }
    return () => {
      for (const kind of kinds) this.listeners.get(kind)?.delete(on);
    };
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  async close(): Promise<void> {
    this.subscribers.clear();
    this.listeners.clear();
    await this.bridge?.close();
    this.bridge = null;
  }
}

/** Heartbeat interval for the WebSocket and SSE transports. */
export const HEARTBEAT_MS = 25_000;
