// What several test files share: catching a throw, and the programmatic/structured output
// shapes most cases are made of.
import assert from "node:assert/strict";

/** The error `fn` throws; fails the test when it returns instead. */
export function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail("expected a throw");
}

export const PROGRAMMATIC = [{ audience: "programmatic", format: "structured" }];
/** A programmatic/structured output whose payload is `{n}`. */
export const output = (n) => ({ audience: "programmatic", format: "structured", structuredContent: { n } });
export const resultOf = (...outputs) => ({ resultType: "complete", outputs });
