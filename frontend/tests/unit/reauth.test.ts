import { describe, expect, it } from "vitest";
import { ApiError, errorFromBody } from "@/lib/api-error";
import { reauthMethods } from "@/lib/reauth";

describe("reauthMethods", () => {
  it("reads the ways to sign in again from a reauth_required answer", () => {
    const error = errorFromBody(403, {
      error: { code: "reauth_required", message: "Confirm it is you", methods: ["passkey", "password", "carrier-pigeon"] },
    });
    expect(reauthMethods(error)).toEqual(["password", "passkey"]);
  });

  it("is null for any other refusal, and empty when the API names no way", () => {
    expect(reauthMethods(errorFromBody(403, { error: { code: "agent_not_allowed", message: "no" } }))).toBeNull();
    expect(reauthMethods(new ApiError(401, "unauthorized", "no"))).toBeNull();
    expect(reauthMethods(new Error("reauth_required"))).toBeNull();
    expect(reauthMethods(errorFromBody(403, { error: { code: "reauth_required", message: "x" } }))).toEqual([]);
    expect(reauthMethods(errorFromBody(403, { error: { code: "reauth_required", message: "x", methods: "password" } }))).toEqual([]);
  });
});
