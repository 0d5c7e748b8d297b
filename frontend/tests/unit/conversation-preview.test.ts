import { describe, expect, it } from "vitest";
import { plainPreview } from "@/components/conversation-item";

describe("plainPreview", () => {
  it("drops Markdown marks from a reply's first words", () => {
    expect(plainPreview("Here is the plan:\n- **first** item\n- `code` and [a link](https://x.y)")).toBe(
      "Here is the plan: first item code and a link",
    );
    expect(plainPreview("## Title\n> quoted | cell |")).toBe("Title quoted cell");
  });

  it("drops list marks the preview has already run together", () => {
    expect(plainPreview("Your tasks: - #1 buy milk - #2 call mom")).toBe("Your tasks: #1 buy milk #2 call mom");
  });

  it("leaves plain text alone", () => {
    expect(plainPreview("Added task #1 'buy milk'.")).toBe("Added task #1 'buy milk'.");
  });
});
