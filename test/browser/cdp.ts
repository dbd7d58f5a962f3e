// A small Chrome DevTools Protocol client over Node's built-in WebSocket:
// commands with replies matched by id, and events by name (and session).
// Enough for page tests against a real Chromium without a driver package.

export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

interface Pending {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  method: string;
}

export class CdpConnection {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<(event: CdpEvent) => void>();
  #nextId = 1;
  #closed: Error | undefined;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (message) => this.#receive(String(message.data)));
    socket.addEventListener("close", () => this.#fail(new Error("the DevTools connection closed")));
  }

  static connect(url: string, timeoutMs = 15_000): Promise<CdpConnection> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      const timer = setTimeout(() => {
        socket.close();
        reject(new Error(`no DevTools connection to ${url} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.addEventListener("open", () => {
        clearTimeout(timer);
        resolve(new CdpConnection(socket));
      });
      socket.addEventListener("error", () => {
        clearTimeout(timer);
        reject(new Error(`cannot connect to DevTools at ${url}`));
      });
    });
  }

  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    const message = { id, method, params, ...(sessionId && { sessionId }) };
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
      this.#socket.send(JSON.stringify(message));
    });
  }

  /** Calls `listener` for every event; returns a function that stops it. */
  onEvent(listener: (event: CdpEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The first event named `method` (in `sessionId`) that satisfies `predicate`. */
  waitForEvent(
    method: string,
    sessionId: string | undefined,
    timeoutMs: number,
    predicate: (params: Record<string, unknown>) => boolean = () => true,
  ): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`no ${method} event within ${timeoutMs} ms`));
      }, timeoutMs);
      const stop = this.onEvent((event) => {
        if (event.method !== method || event.sessionId !== sessionId || !predicate(event.params)) return;
        clearTimeout(timer);
        stop();
        resolve(event.params);
      });
    });
  }

  close(): void {
    this.#socket.close();
  }

  #receive(text: string): void {
    const message = JSON.parse(text) as {
      id?: number;
      result?: Record<string, unknown>;
      error?: { message: string };
    } & Partial<CdpEvent>;
    if (message.id !== undefined) {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) pending.reject(new Error(`${pending.method}: ${message.error.message}`));
      else pending.resolve(message.result ?? {});
      return;
    }
    if (message.method) {
      const event: CdpEvent = { method: message.method, params: message.params ?? {} };
      if (message.sessionId) event.sessionId = message.sessionId;
      for (const listener of [...this.#listeners]) listener(event);
    }
  }

  #fail(error: Error): void {
    this.#closed = error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
