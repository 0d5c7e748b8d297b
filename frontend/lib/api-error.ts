import type { ApiErrorBody } from "./types";

/** An error answer from the API (or from the proxy when the API is down). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly conversationId: number | undefined;
  /** Seconds the API asked to wait (`Retry-After` on a 429), when it said. */
  retryAfter: number | null = null;
  /** What the error body says besides its code and message (`methods` of a `reauth_required`). */
  extra: Record<string, unknown> = {};

  constructor(status: number, code: string, message: string, conversationId?: number) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.conversationId = conversationId;
  }

  get unreachable(): boolean {
    return this.code === "api_unreachable" || this.code === "network_error";
  }

  get unauthorized(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== "object" || value === null || !("error" in value)) return false;
  const inner = (value as { error: unknown }).error;
  return typeof inner === "object" && inner !== null && "code" in inner;
}

export function errorFromBody(status: number, body: unknown): ApiError {
  if (isErrorBody(body)) {
    const { code, message, conversation_id } = body.error;
    const error = new ApiError(status, code, message || code, typeof conversation_id === "number" ? conversation_id : undefined);
    error.extra = { ...(body.error as Record<string, unknown>) };
    return error;
  }
  return new ApiError(status, `http_${status}`, `The API answered with status ${status}.`);
}

export async function errorFromResponse(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const error = errorFromBody(response.status, body);
  const wait = Number(response.headers.get("retry-after"));
  if (Number.isFinite(wait) && wait > 0) error.retryAfter = Math.ceil(wait);
  return error;
}

export function networkError(error: unknown): ApiError {
  const detail = error instanceof Error ? error.message : String(error);
  return new ApiError(0, "network_error", `Cannot reach the Parley web server (${detail}).`);
}

/** Human text for an error, used by every screen. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.unreachable) return "Can't reach the Parley API. Check that it is running, then retry.";
    if (error.code === "turn_in_progress")
      return "The assistant is still answering in this conversation. Wait a moment, then retry.";
    if (error.code === "rate_limited") return "Too many requests. Wait a moment, then retry.";
    // The upstream model's own words go to the server log, not the screen.
    if (error.code === "model_error") return "The assistant couldn't answer this time. Retry, or rephrase your message.";
    if (error.code === "stream_interrupted") return "The connection closed before the reply finished.";
    if (error.status === 500) return "Something went wrong on the server. Retry in a moment.";
    return error.message;
  }
  return error instanceof Error ? error.message : "Something went wrong.";
}
