/**
 * A list after one change reported by an event stream: the item replaced where it was, added
 * at the end when new, or removed when deleted (or gone: `item` null).
 */
export function applyChange<T>(list: T[] | undefined, matches: (item: T) => boolean, item: T | null, deleted: boolean): T[] {
  const current = list ?? [];
  if (deleted || item === null) return current.filter((entry) => !matches(entry));
  return current.some(matches) ? current.map((entry) => (matches(entry) ? item : entry)) : [...current, item];
}
