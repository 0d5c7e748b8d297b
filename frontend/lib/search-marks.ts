/** A found word's place in a text, as the search API gives it: code points `[start, end)`. */
export interface Mark {
  start: number;
  end: number;
}

export interface Segment {
  text: string;
  marked: boolean;
}

/**
 * `text` cut into plain and marked pieces, for rendering `<mark>` as elements (never as HTML).
 * Offsets count code points (an emoji is one), so the cut is made on `Array.from(text)`;
 * marks out of range, overlapping or out of order are clamped or dropped, never thrown on.
 */
export function segments(text: string, marks: readonly Mark[]): Segment[] {
  const points = Array.from(text);
  const out: Segment[] = [];
  let at = 0;
  for (const mark of [...marks].sort((a, b) => a.start - b.start)) {
    const start = Math.max(at, Math.min(points.length, Math.floor(mark.start)));
    const end = Math.max(start, Math.min(points.length, Math.floor(mark.end)));
    if (end === start) continue;
    if (start > at) out.push({ text: points.slice(at, start).join(""), marked: false });
    out.push({ text: points.slice(start, end).join(""), marked: true });
    at = end;
  }
  if (at < points.length) out.push({ text: points.slice(at).join(""), marked: false });
  return out;
}
