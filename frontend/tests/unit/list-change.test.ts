import { describe, expect, it } from "vitest";
import { applyChange } from "@/lib/list-change";

const byId = (id: number) => (item: { id: number }) => item.id === id;

describe("applyChange", () => {
  const list = [
    { id: 1, v: "a" },
    { id: 2, v: "b" },
  ];

  it("replaces an item in place", () => {
    expect(applyChange(list, byId(2), { id: 2, v: "B" }, false)).toEqual([
      { id: 1, v: "a" },
      { id: 2, v: "B" },
    ]);
  });

  it("adds a new item at the end, even to an empty cache", () => {
    expect(applyChange(list, byId(3), { id: 3, v: "c" }, false).map((i) => i.id)).toEqual([1, 2, 3]);
    expect(applyChange(undefined, byId(3), { id: 3, v: "c" }, false)).toEqual([{ id: 3, v: "c" }]);
  });

  it("removes a deleted item, or one reported gone", () => {
    expect(applyChange(list, byId(1), null, true).map((i) => i.id)).toEqual([2]);
    expect(applyChange(list, byId(2), null, false).map((i) => i.id)).toEqual([1]);
  });
});
