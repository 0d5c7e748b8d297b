import { describe, expect, it } from "vitest";
import { groupByDay } from "@/lib/format-time";

describe("groupByDay", () => {
  it("puts conversations under Today, Yesterday, Previous 7 days and Older, keeping their order", () => {
    const now = new Date(2026, 10, 22, 15, 0);
    const at = (days: number, hour = 10) => new Date(2026, 10, 22 - days, hour).toISOString();
    const items = [
      { id: 1, created_at: at(0) },
      { id: 2, created_at: at(9), last_message_at: at(0, 1) },
      { id: 3, created_at: at(1, 23) },
      { id: 4, created_at: at(3) },
      { id: 5, created_at: at(30) },
    ];
    const groups = groupByDay(items, now).map(({ label, items }) => [label, items.map((i) => i.id)]);
    expect(groups).toEqual([
      ["Today", [1, 2]],
      ["Yesterday", [3]],
      ["Previous 7 days", [4]],
      ["Older", [5]],
    ]);
  });
});
