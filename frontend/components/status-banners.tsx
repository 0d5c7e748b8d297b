"use client";

import type { HealthState } from "@/lib/use-health";

/** API outage and database banners, and the offline-model notice (collapsed to one line). */
export function StatusBanners({ health, work = false }: { health: HealthState; work?: boolean }) {
  const { reachable, health: info } = health;
  return (
    <>
      <div aria-live="assertive" className="banner-slot">
        {reachable === false && (
          <div className="banner danger" data-testid="api-unreachable" role="alert">
            <span>
              <strong>Can&apos;t reach the Parley API.</strong> Trying again every few seconds; your work resumes when it is
              back.
            </span>
            <button type="button" className="button small" onClick={health.recheck}>
              Check now
            </button>
          </div>
        )}
        {reachable && info?.database === "unavailable" && (
          <div className="banner danger" data-testid="database-unavailable" role="alert">
            <strong>The database is unavailable.</strong> The API is up but cannot store or load anything right now.
          </div>
        )}
      </div>
      {/* A work session is Claude Code, not the offline model: the notice would mislead there. */}
      {info?.offline_model && !work && (
        <details className="banner info" data-testid="offline-banner">
          <summary>
            <strong>Offline model</strong> <span className="banner-summary">· simple task commands only</span>
          </summary>
          <p>
            Replies come from Parley&apos;s built-in model. To use a real model, set <code>OPENAI_API_KEY</code> and{" "}
            <code>PARLEY_MODEL</code> (or <code>OPENAI_BASE_URL</code> for a local OpenAI-compatible server) and restart the
            API.
          </p>
        </details>
      )}
    </>
  );
}
