"use client";

import { useEffect } from "react";
import { registerServiceWorker } from "@/lib/push";

/** Registers Parley's service worker on every page: installable as an app, and ready for pushes. */
export function ServiceWorker() {
  useEffect(() => {
    void registerServiceWorker();
  }, []);
  return null;
}
