import { PolicyDiagnosticError, parsePolicy } from "../src/index.js";
import type { Policy } from "../src/index.js";

/** Parse one source as `t.rules`. */
export function policy(source: string): Policy {
  return parsePolicy([{ path: "t.rules", source }]);
}

/** Parse and return the diagnostic it must throw. */
export function diag(source: string): PolicyDiagnosticError {
  try {
    policy(source);
  } catch (e) {
    if (e instanceof PolicyDiagnosticError) return e;
    throw e;
  }
  throw new Error(`expected a diagnostic for: ${source}`);
}
