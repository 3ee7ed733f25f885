#!/usr/bin/env node
// Long fuzz run (not part of `npm test`): many random inputs through the parser; any non-PolicyError
// exception is a bug. `node bench/fuzz-long.mjs [runs]` (default 20,000 per generator).
import fc from "fast-check";
import { parsePolicy, PolicyError } from "../dist/index.js";

const runs = Number(process.argv[2] ?? 20_000);
function check(source) {
  try {
    parsePolicy([{ path: "fuzz.rules", source }], { maxSteps: 50_000 });
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
  }
}
const piece = fc.constantFrom(
  "prefix_rule", "host_executable", "network_rule", "(", ")", "[", "]", "{", "}", ",", ":", "=", "+", "*", "-", "//", "%", "not", "in",
  "for", "if", "elif", "else", "def", "return", "lambda", "\n", "    ", "\t", '"a"', "'b'", "'''", '"', "r'x'", "f'{x}'", "x", "1", "1.5",
  "None", "True", "range", "len", "str", "load", "while", "#", "\\", ".", "pattern=", "decision=", '"allow"', ";", "match=", "**", "*",
);
const t0 = Date.now();
fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 400 }), check), { numRuns: runs });
fc.assert(fc.property(fc.array(piece, { maxLength: 120 }), (p) => check(p.join(" "))), { numRuns: runs });
fc.assert(fc.property(fc.array(piece, { maxLength: 120 }), (p) => check(p.join(""))), { numRuns: runs });
console.log(`fuzz: ${3 * runs} inputs, only typed errors, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
