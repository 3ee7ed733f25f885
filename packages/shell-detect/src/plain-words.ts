import type { SplitResult } from "./split.js";

/**
 * One command of words separated by single spaces, each made only of characters that bash passes
 * through unchanged: no quotes, expansions, globs, braces, tilde, comment, operators or other blanks.
 * Narrower than bash allows, on purpose: these are the shapes tree-sitter-bash 0.25.1 is known to read
 * as the same words. The command name keeps out `%`, `@`, `:` and `,` (the grammar misreads `a%`, `x@y`,
 * `a+:` as syntax errors) and a leading `-`; no word starts with `=` (a lone `==` argument is a syntax
 * error to the grammar, and `=` leading a name is zsh's equals expansion); `=` elsewhere only after
 * the command name (`FOO=1 make` is an assignment).
 */
const PLAIN_WORDS = /^[A-Za-z0-9_./+][A-Za-z0-9_./+-]*(?: [A-Za-z0-9_./,:@%+-][A-Za-z0-9_./,:@%+=-]*)*$/;

/**
 * Command names that are not commands: bash's reserved words, and the words tree-sitter-bash reads as
 * declarations or `unset` (which the parser path refuses).
 */
const NOT_A_COMMAND_NAME = new Set([
  ...["if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done", "in", "function", "select", "time", "coproc"],
  ...["declare", "typeset", "export", "readonly", "local", "unset", "unsetenv"],
]);

/**
 * The split of a script that is plainly one command of words (see {@link PLAIN_WORDS}), found without
 * the parser; `undefined` for anything else, which the parser then reads. What it returns is what the
 * parser path returns for the same script: the differential property test holds it to that.
 */
export function splitPlainWords(script: string): SplitResult | undefined {
  if (!PLAIN_WORDS.test(script)) return undefined;
  const words = script.split(" ");
  if (NOT_A_COMMAND_NAME.has(words[0]!)) return undefined;
  return { kind: "plain", commands: [words], globbed: [false] };
}
