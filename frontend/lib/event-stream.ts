import { apiFetch } from "./api-client";
import { ApiError } from "./api-error";
import type { Session } from "./auth-store";
import { parseJson, readSse } from "./sse";

export interface FollowOptions {
  /** Path (after `/api`) to read, built again on every (re)connect. */
  path: () => string;
  /** Sent as `Last-Event-ID` on (re)connect, so the server replays what was missed. */
  lastEventId?: () => string | null;
  onEvent: (event: string, data: Record<string, unknown>, id: string | null) => void;
  /** Called once per successful connection (after a reconnect, state may need a reload). */
  onOpen?: () => void;
  /** The server has no such stream or refuses it (401/403/404/405): following stops. */
  onUnavailable?: (status: number) => void;
  /** A connection failed or closed (the API restarting, say); a reconnect follows. */
  onDropped?: () => void;
  /**
   * A reconnect is waiting out its backoff: `wake` connects at once (the caller knows the
   * server is back); null when the wait is over.
   */
  onWaiting?: (wake: (() => void) | null) => void;
  signal: AbortSignal;
}

function sleep(ms: number, signal: AbortSignal, onWaiting?: FollowOptions["onWaiting"]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      onWaiting?.(null);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
    onWaiting?.(done);
  });
}

/**
 * Follows an SSE endpoint until `signal` aborts: reconnects with backoff (1 s doubling to 30 s)
 * after errors or a closed stream, and stops for good when the stream does not exist or the
 * session is refused.
 */
export async function followEvents(session: Session, options: FollowOptions): Promise<void> {
  const { signal } = options;
  let failures = 0;
  while (!signal.aborted) {
    try {
      const last = options.lastEventId?.() ?? null;
      const response = await apiFetch(session, options.path(), {
        accept: "text/event-stream",
        headers: last ? { "last-event-id": last } : undefined,
        signal,
      });
      if (!response.body || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
        options.onUnavailable?.(response.status);
        return;
      }
      failures = 0;
      options.onOpen?.();
      for await (const event of readSse(response.body, signal)) {
        const data = parseJson<Record<string, unknown>>(event.data);
        if (data !== null && typeof data === "object") options.onEvent(event.event, data, event.id);
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && (error.status === 404 || error.status === 405 || error.unauthorized)) {
        options.onUnavailable?.(error.status);
        return;
      }
    }
    failures += 1;
    options.onDropped?.();
    await sleep(Math.min(30_000, 1_000 * 2 ** Math.min(failures - 1, 5)), signal, options.onWaiting);
  }
}
