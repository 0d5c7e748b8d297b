import { ApiError, errorFromResponse, networkError } from "./api-error";
import { markSessionExpired, type Session } from "./auth-store";

export interface RequestOptions {
  method?: string;
  body?: unknown;
  accept?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * Low-level call through the same-origin proxy; the browser sends the HttpOnly session cookie
 * itself. `session` says whose request it is, so a refusal (401) ends that session on screen.
 * Throws ApiError for any non-2xx answer.
 */
export async function apiFetch(
  session: Session | null,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { accept: options.accept ?? "application/json", ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";

  let response: Response;
  try {
    response = await fetch(`/api${path}`, {
      method: options.method ?? "GET",
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw networkError(error);
  }
  if (!response.ok) {
    const error = await errorFromResponse(response);
    if (session && error.status === 401) markSessionExpired(session);
    throw error;
  }
  return response;
}

export async function apiJson<T>(session: Session | null, path: string, options?: RequestOptions): Promise<T> {
  const response = await apiFetch(session, path, options);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** `/{user}` prefix for user-scoped routes. */
export function userPath(session: Session, rest: string): string {
  return `/${encodeURIComponent(session.userId)}${rest}`;
}

export { ApiError };
