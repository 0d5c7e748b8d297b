"use client";

import type { HealthState } from "@/lib/use-health";

/** API outage and offline-model banners, driven by GET /api/health. */
export function StatusBanners({ health }: { health: HealthState }) {
  const { reachable, health: info } = health;
  return (
    <>
      <div aria-live="assertive" className="banner-slot">
        {reachable === false && (
          <div className="banner danger" data-testid="api-unreachable" role="alert">
            <strong>Can&apos;t reach the Parley API.</strong> Trying again every few seconds; your work resumes when it is
            back.
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
      {info?.offline_model && (
        <aside className="banner info" data-testid="offline-banner" aria-label="Model notice">
          <strong>Offline model:</strong> replies come from Parley&apos;s built-in model, which only understands simple task
          commands. To use a real model, set <code>OPENAI_API_KEY</code> and <code>PARLEY_MODEL</code> (or{" "}
          <code>OPENAI_BASE_URL</code> for a local OpenAI-compatible server) and restart the API.
        </aside>
      )}
    </>
  );
}
