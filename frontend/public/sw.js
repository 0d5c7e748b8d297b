/* global self, caches, fetch, URL */
/**
 * Parley's service worker (served from the site root so its scope is the whole app).
 *
 * Every notification is a view of one stored question: a push names the question by its tag
 * (`parley-q-<id>`), so a later push with the same tag (the question answered elsewhere, timed
 * out, closed) replaces or closes it on every device. A notification's Allow / Deny (or Yes / No)
 * buttons answer through the question's own answer route, with the person's session cookie, so
 * the server applies the same checks and keeps the same audit record as an answer from the UI; a
 * permission request's "Always allow" (shown where the browser has room for a third button) goes
 * through the card's "Always allow this" route the same way.
 *
 * It has no fetch handler: the app never works offline, and a no-op handler only slows requests.
 */

/** Where the page leaves this device's subscription id (the `X-Parley-Device` header): lib/push.ts. */
const DEVICE_CACHE = "parley-push";
const DEVICE_KEY = "/__parley/push-device";
/**
 * The only requests a notification may make: answering one of the person's questions, and (a
 * permission request's "Always allow") answering it allow with a rule made from its call.
 */
const ANSWER_PATH = /^\/api\/[A-Za-z0-9_.@%-]{1,200}\/questions\/\d{1,12}\/answer$/;
const ALWAYS_PATH = /^\/api\/[A-Za-z0-9_.@%-]{1,200}\/approval-rules\/from-question\/\d{1,12}$/;
const ICON = "/icons/icon-192.png";
const BADGE = "/icons/badge-96.png";

self.addEventListener("install", () => {
  void self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

/**
 * Keeps the worker alive until `promise` settles. An event a script made (not the browser) cannot
 * be extended; its work still runs to the end.
 */
function keepAlive(event, promise) {
  try {
    event.waitUntil(promise);
  } catch {
    // not dispatched by the browser
  }
  return promise;
}

function readPayload(data) {
  if (!data) return null;
  try {
    const payload = data.json();
    return payload && typeof payload === "object" && typeof payload.tag === "string" ? payload : null;
  } catch {
    return null;
  }
}

/**
 * A same-origin path to open (the conversation at the question), else the app's start. Checked
 * after parsing too: a URL parser reads `/\evil.example` (and `/<tab>/evil.example`) as `//evil.example`.
 */
function safeUrl(url) {
  if (typeof url !== "string" || !url.startsWith("/") || url.startsWith("//")) return "/";
  let parsed;
  try {
    parsed = new URL(url, self.location.origin);
  } catch {
    return "/";
  }
  return parsed.origin === self.location.origin ? parsed.pathname + parsed.search + parsed.hash : "/";
}

async function closeTagged(tag) {
  const shown = await self.registration.getNotifications({ tag });
  for (const notification of shown) notification.close();
}

async function onPush(payload) {
  if (!payload) {
    await self.registration.showNotification("Parley", { body: "Something in Parley needs you.", icon: ICON, badge: BADGE });
    return;
  }
  if (payload.kind === "question_closed") {
    await closeTagged(payload.tag);
    return;
  }
  const actions = Array.isArray(payload.actions)
    ? payload.actions
        .filter((a) => a && typeof a.action === "string" && typeof a.title === "string")
        .map((a) => ({ action: a.action, title: a.title }))
    : [];
  const isQuestion = payload.kind === "question";
  await self.registration.showNotification(String(payload.title || "Parley"), {
    body: typeof payload.body === "string" ? payload.body : "",
    tag: payload.tag,
    data: payload,
    actions,
    icon: ICON,
    badge: BADGE,
    // A new question under an old tag rings again; a question stays until it is dealt with.
    renotify: isQuestion,
    requireInteraction: isQuestion,
  });
}

self.addEventListener("push", (event) => {
  keepAlive(event, onPush(readPayload(event.data)));
});

/** This device's subscription id, when it is the one of the person the push was for. */
async function deviceId(userId) {
  try {
    const cache = await caches.open(DEVICE_CACHE);
    const stored = await cache.match(DEVICE_KEY);
    if (!stored) return null;
    const device = await stored.json();
    return device && device.id != null && device.userId === userId ? String(device.id) : null;
  } catch {
    return null;
  }
}

/** Why an answer from a notification did not count, in a person's words. */
function refusal(status) {
  if (status === 409) return "Already answered or closed: nothing was changed.";
  if (status === 401) return "You're signed out on this device. Open Parley to answer.";
  if (status === 403 || status === 404) return "This question isn't yours to answer here.";
  if (status === 0) return "Parley couldn't be reached, so nothing was answered. Open the question to try again.";
  return `The answer was refused (HTTP ${status}). Open the question to try again.`;
}

/** Where an action posts: the question's answer route, or the route the payload names for it. */
function actionPath(route, action) {
  const own = route.paths && typeof route.paths === "object" && Object.hasOwn(route.paths, action) ? route.paths[action] : undefined;
  if (own !== undefined) return typeof own === "string" && ALWAYS_PATH.test(own) ? own : "";
  return typeof route.path === "string" && ANSWER_PATH.test(route.path) ? route.path : "";
}

async function answer(payload, action) {
  const route = payload.answer && typeof payload.answer === "object" ? payload.answer : null;
  const body = route && action !== "path" && action !== "paths" && Object.hasOwn(route, action) ? route[action] : undefined;
  const path = route ? actionPath(route, action) : "";
  if (!body || typeof body !== "object" || !path) {
    await openConversation(payload);
    return;
  }
  const headers = { "content-type": "application/json", accept: "application/json" };
  const device = await deviceId(payload.user_id);
  if (device) headers["x-parley-device"] = device;
  let status = 0;
  try {
    const response = await fetch(path, { method: "POST", credentials: "include", headers, body: JSON.stringify(body) });
    status = response.status;
  } catch {
    status = 0;
  }
  if (status >= 200 && status < 300) return;
  // Shown under the question's own tag, so it replaces (and is replaced by) the question's view.
  await self.registration.showNotification("Not answered", {
    body: refusal(status),
    tag: payload.tag,
    data: { ...payload, actions: [], answer: undefined, failed: status },
    icon: ICON,
    badge: BADGE,
  });
}

async function openConversation(payload) {
  const url = new URL(safeUrl(payload && payload.url), self.location.origin).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
  if (open) {
    let client = open;
    try {
      client = (await open.focus()) || open;
    } catch {
      // A browser may refuse focus (no click to vouch for it): the window still goes to the question.
    }
    if (client.url === url) return;
    try {
      await client.navigate(url);
      return;
    } catch {
      // not controlled by this worker yet: open a window instead
    }
  }
  await self.clients.openWindow(url);
}

async function onNotificationClick(notification, action) {
  const payload = notification.data && typeof notification.data === "object" ? notification.data : null;
  notification.close();
  if (!payload) {
    await openConversation(null);
    return;
  }
  if (action && !payload.failed) await answer(payload, action);
  else await openConversation(payload);
}

self.addEventListener("notificationclick", (event) => {
  keepAlive(event, onNotificationClick(event.notification, event.action));
});
