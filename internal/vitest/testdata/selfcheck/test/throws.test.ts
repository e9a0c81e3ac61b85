import { it } from "vitest";

throw new Error("this file throws while it is collected");
it("never collected", () => {});
