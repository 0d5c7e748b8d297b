/** "14:05" today, "Mon 14:05" this week, else "3 Mar". */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const now = new Date();
  const time = date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  if (date.toDateString() === now.toDateString()) return time;
  const days = (now.getTime() - date.getTime()) / 86_400_000;
  if (days < 6) return `${date.toLocaleDateString(undefined, { weekday: "short" })} ${time}`;
  return date.toLocaleDateString(undefined, { day: "numeric", month: "short" });
}

export function fullTime(iso: string | null | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString();
}

const DAY_MS = 86_400_000;

/** Items (newest first) under "Today", "Yesterday", "Previous 7 days" and "Older". */
export function groupByDay<T extends { created_at: string; updated_at?: string; last_message_at?: string | null }>(
  items: T[],
  now: Date = new Date(),
): { label: string; items: T[] }[] {
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const at = new Date(item.last_message_at ?? item.updated_at ?? item.created_at).getTime();
    const label =
      at >= startOfToday ? "Today" : at >= startOfToday - DAY_MS ? "Yesterday" : at >= startOfToday - 7 * DAY_MS ? "Previous 7 days" : "Older";
    groups.set(label, [...(groups.get(label) ?? []), item]);
  }
  return [...groups].map(([label, grouped]) => ({ label, items: grouped }));
}
