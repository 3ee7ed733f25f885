import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitScript } from "../src/index.js";

const RESERVED = new Set(["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "time", "coproc"]);

/** A piece of a word as written in the script, and what bash makes of it. */
interface Piece {
  src: string;
  word: string;
}

const bare = (alphabet: string, first = alphabet) =>
  fc
    .tuple(fc.constantFrom(...first), fc.array(fc.constantFrom(...alphabet), { maxLength: 7 }))
    .map(([a, rest]) => a + rest.join(""))
    .filter((w) => !RESERVED.has(w))
    .map((w): Piece => ({ src: w, word: w }));

const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const BARE = `${LETTERS}0123456789._/:@%+,-`;
// Command names keep to tamer characters: tree-sitter-bash 0.25.1 reports e.g. `a%`, `a@`, `a+:` in command
// position as syntax errors. That is a false "not plain" (safe), so the round-trip property skips it.
const NAME = `${LETTERS}0123456789._/-`;
const singleQuoted = fc
  .array(fc.constantFrom(..."ab $`\"\\|&;<>(){}*?[]#~!\n"), { maxLength: 8 })
  .map((cs): Piece => ({ src: `'${cs.join("")}'`, word: cs.join("") }));
const doubleQuoted = fc
  .array(fc.constantFrom(..."ab '|&;<>(){}*?[]#~\n"), { maxLength: 8 })
  .map((cs): Piece => ({ src: `"${cs.join("")}"`, word: cs.join("") }));

const join = (pieces: Piece[]): Piece => ({ src: pieces.map((p) => p.src).join(""), word: pieces.map((p) => p.word).join("") });

/** Pieces glued together form one argument (a concatenation when they mix quoting). */
const argument = fc.array(fc.oneof(bare(BARE), bare(`${BARE}=`, BARE), singleQuoted, doubleQuoted), { minLength: 1, maxLength: 3 }).map(join);
const commandName = fc
  .tuple(fc.oneof(bare(NAME, LETTERS), singleQuoted.filter((p) => p.word.trim() !== "" && !p.word.includes("\n")).map((p) => p)), fc.array(fc.oneof(bare(NAME), singleQuoted), { maxLength: 1 }))
  .map(([head, rest]) => join([head, ...rest]));
const command = fc.tuple(commandName, fc.array(argument, { maxLength: 4 })).map(([name, args]) => [name, ...args]);
const OPERATORS = [" && ", " || ", "; ", " | ", "\n", ";", "|", "&&", " ;\n"];

const plainScript = fc
  .tuple(fc.array(command, { minLength: 1, maxLength: 5 }), fc.array(fc.constantFrom(...OPERATORS), { minLength: 5, maxLength: 5 }))
  .map(([commands, ops]) => ({
    commands,
    render: (cmds: Piece[][]) => cmds.map((c, i) => (i === 0 ? "" : ops[i - 1]) + c.map((p) => p.src).join(" ")).join(""),
  }));

describe("property: plain scripts round-trip", () => {
  it("splitting never drops or invents a command word", async () => {
    await fc.assert(
      fc.asyncProperty(plainScript, async ({ commands, render }) => {
        const script = render(commands);
        const result = await splitScript(script);
        // The one tolerated refusal: a tree-sitter parse that ran a command on past a newline.
        if (result.kind === "not-plain" && /ambiguous parse/.test(result.reason)) return;
        expect(result, script).toMatchObject({ kind: "plain", commands: commands.map((c) => c.map((p) => p.word)) });
        if (result.kind === "plain") expect(result.globbed).toHaveLength(result.commands.length);
      }),
      { numRuns: 400 },
    );
  });
});

describe("property: our words are the words bash passes (real /bin/bash)", () => {
  it.skipIf(!existsSync("/bin/bash"))("printf sees exactly the split words (needs /bin/bash)", async () => {
    const ops = fc.array(fc.constantFrom(" ; ", " && ", "\n", ";"), { minLength: 4, maxLength: 4 });
    // Blanks between words, including line continuations on either side of a space.
    const blanksArb = fc.array(fc.constantFrom(" ", "  ", "\t", " \\\n", "\\\n ", " \\\n\t"), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(argument, { maxLength: 4 }), { minLength: 1, maxLength: 4 }), ops, blanksArb, async (cmds, joins, blanks) => {
        // Every command is `printf '<%s>' ARGS`, so bash's output spells out the words it passed.
        const script = cmds
          .map((args, i) => (i === 0 ? "" : joins[i - 1]) + ["printf", "'<%s>'", ...args.map((a) => a.src)].map((w, j) => (j === 0 ? w : blanks[(i + j) % blanks.length] + w)).join(""))
          .join("");
        const split = await splitScript(script);
        if (split.kind !== "plain") {
          expect(split, script).toMatchObject({ kind: "not-plain", reason: expect.stringMatching(/ambiguous parse/) });
          return;
        }
        const fromSplit = split.commands.map((c) => (c.length > 2 ? c.slice(2).map((w) => `<${w}>`).join("") : "<>")).join("");
        expect(execFileSync("/bin/bash", ["-c", script], { encoding: "utf8" }), script).toBe(fromSplit);
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});

/** Constructs that must make any script "not plain" wherever they are put (outside single quotes). */
const TOKENS = ["$(id)", "`id`", "> out", ">out", "< in", "<in", ">> log", "2>&1", "&", "$VAR", "${VAR}", "$1", "(", ")", "( ls )", "$((1+1))", "<(ls)"];
const IN_DOUBLE_QUOTES = ["$(id)", "`id`", "$VAR", "${VAR}", "$HOME/x", "$"];
const GLUED = ["$(id)", "`id`", ">out", "<in", "&", "$VAR", "${VAR}", "("];

describe("property: expansions, redirections, background, subshells, heredocs are never plain", () => {
  it("holds wherever the construct is inserted", async () => {
    const insertion = fc.oneof(
      fc.record({ how: fc.constant("token" as const), text: fc.constantFrom(...TOKENS) }),
      fc.record({ how: fc.constant("glued" as const), text: fc.constantFrom(...GLUED) }),
      fc.record({ how: fc.constant("quoted" as const), text: fc.constantFrom(...IN_DOUBLE_QUOTES) }),
      fc.record({ how: fc.constant("heredoc" as const), text: fc.constantFrom("<<EOF\nhello\nEOF", "<<'EOF'\nhello\nEOF", "<<-EOF\n\thi\n\tEOF", "<<< word") }),
      fc.record({ how: fc.constant("background" as const), text: fc.constant(" & ") }),
    );
    await fc.assert(
      fc.asyncProperty(plainScript, insertion, fc.nat(), fc.nat(), async ({ commands, render }, ins, ci, wi) => {
        const cmds = commands.map((c) => [...c]);
        const target = cmds[ci % cmds.length]!;
        const at = wi % (target.length + 1);
        switch (ins.how) {
          case "token":
            target.splice(at, 0, { src: ins.text, word: "" });
            break;
          case "glued": {
            const w = target[Math.min(at, target.length - 1)]!;
            target[Math.min(at, target.length - 1)] = { src: w.src + ins.text, word: "" };
            break;
          }
          case "quoted":
            target.splice(at, 0, { src: `"a${ins.text}b"`, word: "" });
            break;
          case "heredoc":
            target.push({ src: ins.text.includes("\n") ? `${ins.text.split("\n")[0]}` : ins.text, word: "" });
            break;
          case "background":
            target.push({ src: "&", word: "" });
            break;
        }
        let script = render(cmds);
        if (ins.how === "heredoc" && ins.text.includes("\n")) {
          // The heredoc body goes after the line holding the redirection.
          const body = ins.text.split("\n").slice(1).join("\n");
          const lines = script.split("\n");
          const line = lines.findIndex((l) => l.includes(ins.text.split("\n")[0]!));
          lines.splice(line + 1, 0, body);
          script = lines.join("\n");
        }
        const result = await splitScript(script);
        expect(result.kind, script).toBe("not-plain");
      }),
      { numRuns: 400 },
    );
  });
});
