import { mutate } from "swr";
import { ApiError } from "./api-error";

/** The SWR key of the health probe (`useHealth`): revalidating it checks the API now. */
export const HEALTH_KEY = "parley:health";

/**
 * The API (or the web server in front of it) is away, restarting or overloaded: the
 * "can't reach" banner says so, once, for every panel; no panel repeats it in its own words.
 */
export function isOutage(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  return error.unreachable || error.status === 502 || error.status === 503 || error.status === 504;
}

/** Something failed the way an outage does: the health probe runs now (it shows the banner,
 * then polls every 2 s until the API is back), instead of at its next 20 s tick. */
export function checkHealthNow(): void {
  void mutate(HEALTH_KEY);
}
