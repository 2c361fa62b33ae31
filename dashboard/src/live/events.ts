import { useEffect, useRef, useSyncExternalStore } from 'react';

/** An event of the realtime channel (D14): `/ws`, or server-sent events at /api/v1/events when a WebSocket cannot open. */
export interface LiveEvent {
  kind: string;
  at: number;
  data: unknown;
}

/** How the channel is connected: `connecting` until the server's first word, then `ws` or `sse`; `waiting` between attempts. */
export type LiveState = 'idle' | 'connecting' | 'ws' | 'sse' | 'waiting';

interface Listener {
  kinds: ReadonlySet<string>;
  /** Called with every event of one of `kinds`. */
  deliver(event: LiveEvent): void;
}

/** The server sends `ready` first on a WebSocket; a socket that closes before it never worked (a proxy, a block). */
const READY = 'ready';
/** Events the channel itself uses (not given to listeners unless asked for). */
export const LIVE_RECONNECTED = 'live.reconnected';
/** The server closed the channel because the session ended (WebSocket close code 4401). */
export const LIVE_CLOSED = 'live.closed';
const READY_TIMEOUT_MS = 8_000;
const BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000];
/** After the last listener leaves, the connection is kept this long (a screen change re-subscribes at once). */
const LINGER_MS = 5_000;

/**
 * One connection for the whole app. Tries a WebSocket on `/ws` first; when that cannot open
 * (refused, blocked, or no `ready` from the server in time) it uses server-sent events on
 * /api/v1/events instead. Any loss reconnects after a growing pause (1 s … 30 s), trying the
 * WebSocket again first. After a reconnect a `live.reconnected` event goes to those who listen
 * for it, since events may have been missed meanwhile.
 */
class LiveChannel {
  private readonly listeners = new Set<Listener>();
  private readonly stateListeners = new Set<() => void>();
  private state: LiveState = 'idle';
  private ws: WebSocket | null = null;
  private es: EventSource | null = null;
  /** Kinds the EventSource has a handler for (server-sent events are named by kind). */
  private readonly esKinds = new Set<string>();
  private attempts = 0;
  private connectedBefore = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private readyTimer: ReturnType<typeof setTimeout> | null = null;
  private lingerTimer: ReturnType<typeof setTimeout> | null = null;

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (this.lingerTimer) {
      clearTimeout(this.lingerTimer);
      this.lingerTimer = null;
    }
    for (const kind of listener.kinds) this.listenOnEventSource(kind);
    if (this.state === 'idle') this.connect();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && !this.lingerTimer) {
        this.lingerTimer = setTimeout(() => {
          this.lingerTimer = null;
          if (this.listeners.size === 0) this.stop();
        }, LINGER_MS);
      }
    };
  }

  getState = (): LiveState => this.state;

  onState = (callback: () => void): (() => void) => {
    this.stateListeners.add(callback);
    return () => this.stateListeners.delete(callback);
  };

  private setState(state: LiveState): void {
    if (this.state === state) return;
    this.state = state;
    for (const callback of this.stateListeners) callback();
  }

  private dispatch(event: LiveEvent): void {
    for (const listener of [...this.listeners]) {
      if (!listener.kinds.has(event.kind)) continue;
      try {
        listener.deliver(event);
      } catch (err) {
        // One screen's failing handler does not stop the others.
        console.warn('live event handler failed', err);
      }
    }
  }

  private connected(via: 'ws' | 'sse'): void {
    this.attempts = 0;
    this.setState(via);
    if (this.connectedBefore) this.dispatch({ kind: LIVE_RECONNECTED, at: Date.now(), data: { via } });
    this.connectedBefore = true;
  }

  private connect(): void {
    this.clearTimers();
    this.setState('connecting');
    let socket: WebSocket;
    try {
      const url = new URL('/ws', window.location.href);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      socket = new WebSocket(url);
    } catch {
      this.connectSse();
      return;
    }
    this.ws = socket;
    let ready = false;
    this.readyTimer = setTimeout(() => {
      if (!ready) socket.close();
    }, READY_TIMEOUT_MS);
    socket.onmessage = (message) => {
      const event = parse(message.data);
      if (!event) return;
      if (event.kind === READY && !ready) {
        ready = true;
        if (this.readyTimer) clearTimeout(this.readyTimer);
        this.connected('ws');
        return;
      }
      this.dispatch(event);
    };
    socket.onclose = (close) => {
      if (this.ws !== socket) return;
      this.ws = null;
      if (!ready) {
        this.connectSse();
        return;
      }
      if (close.code === 4401) {
        // The session ended: no reconnect with it. The shell (listening for `live.closed`) asks who
        // is signed in, which leads to sign-in; the next sign-in's shell subscribes afresh.
        this.stop();
        this.dispatch({ kind: LIVE_CLOSED, at: Date.now(), data: { code: close.code } });
        return;
      }
      this.retry();
    };
  }

  private connectSse(): void {
    this.clearTimers();
    if (this.listeners.size === 0) {
      this.stop();
      return;
    }
    const source = new EventSource('/api/v1/events', { withCredentials: true });
    this.es = source;
    this.esKinds.clear();
    for (const listener of this.listeners) for (const kind of listener.kinds) this.listenOnEventSource(kind);
    source.onopen = () => this.connected('sse');
    source.onerror = () => {
      // The browser would retry on its own, but a refused stream (401) it gives up; one retry path for both.
      if (this.es !== source) return;
      source.close();
      this.es = null;
      this.retry();
    };
  }

  private listenOnEventSource(kind: string): void {
    const source = this.es;
    if (!source || this.esKinds.has(kind) || kind.startsWith('live.')) return;
    this.esKinds.add(kind);
    source.addEventListener(kind, (message) => {
      const event = parse((message as MessageEvent).data);
      if (event) this.dispatch(event);
    });
  }

  private retry(): void {
    this.clearTimers();
    if (this.listeners.size === 0) {
      this.stop();
      return;
    }
    this.setState('waiting');
    const wait = BACKOFF_MS[Math.min(this.attempts, BACKOFF_MS.length - 1)]!;
    this.attempts += 1;
    // Jitter: many tabs of one instance do not all knock at once after a restart.
    this.retryTimer = setTimeout(() => this.connect(), wait * (0.8 + Math.random() * 0.4));
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.readyTimer) clearTimeout(this.readyTimer);
    this.retryTimer = null;
    this.readyTimer = null;
  }

  /** Closes the connection now (sign-out): the next subscriber opens a fresh one with the new session. */
  stopNow(): void {
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = null;
    // No reconnect here: the old session is gone; the next subscriber (the next sign-in's shell) connects.
    this.stop();
  }

  private stop(): void {
    this.clearTimers();
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onmessage = null;
      ws.onclose = null;
      // Closing a socket still opening makes the browser log an error; it closes once open instead.
      if (ws.readyState === WebSocket.CONNECTING) ws.onopen = () => ws.close();
      else ws.close();
    }
    this.es?.close();
    this.es = null;
    this.attempts = 0;
    this.connectedBefore = false;
    this.setState('idle');
  }
}

function parse(raw: unknown): LiveEvent | null {
  if (typeof raw !== 'string') return null;
  try {
    const value = JSON.parse(raw) as Partial<LiveEvent>;
    if (typeof value.kind !== 'string') return null;
    return { kind: value.kind, at: typeof value.at === 'number' ? value.at : Date.now(), data: value.data };
  } catch {
    return null;
  }
}

const channel = new LiveChannel();

/**
 * Calls `onEvent` for every event of one of `kinds` while the calling component is mounted
 * (one shared connection for the whole app, reconnecting on its own). `live.reconnected` may be
 * among the kinds: it comes after a lost connection is back (events may have been missed).
 */
export function useLiveEvents(kinds: readonly string[], onEvent: (event: LiveEvent) => void): void {
  const handler = useRef(onEvent);
  useEffect(() => {
    handler.current = onEvent;
  });
  const key = [...kinds].sort().join('\n');
  useEffect(() => {
    const set = new Set(key.split('\n').filter(Boolean));
    return channel.subscribe({ kinds: set, deliver: (event) => handler.current(event) });
  }, [key]);
}

/** Drops the connection at once (after a sign-out, so the next person's session opens its own). */
export function restartLiveChannel(): void {
  channel.stopNow();
}

/** How the channel is connected now (for a "live updates paused" hint). */
export function useLiveState(): LiveState {
  return useSyncExternalStore(channel.onState, channel.getState, () => 'idle');
}
