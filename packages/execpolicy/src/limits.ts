/** Resource bounds of the policy language (bad input fails with a typed error at these limits). */

/** Deepest bracket nesting accepted (`[[[...]]]`); deeper input is NESTING_TOO_DEEP, not a stack overflow. */
export const MAX_BRACKET_DEPTH = 64;
/** Deepest block nesting accepted (indentation levels). */
export const MAX_BLOCK_DEPTH = 32;
/** Deepest expression nesting accepted (operators, calls, lambdas). */
export const MAX_EXPR_DEPTH = 200;
/** Default evaluation budget per file (statements, loop iterations, calls, builtin element work). */
export const DEFAULT_MAX_STEPS = 5_000_000;
/** Deepest user-function call chain. */
export const MAX_CALL_DEPTH = 64;
