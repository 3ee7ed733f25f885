import { describe, expect, it } from "vitest";
import { MAX_SPLIT_SCRIPT_CHARS, splitScript } from "../src/index.js";
import { splitPlainWords } from "../src/plain-words.js";
import { splitScriptByParser } from "../src/split.js";

describe("splitPlainWords: scripts it splits without the parser", () => {
  it.each([
    ["true", ["true"]],
    ["git status", ["git", "status"]],
    ["ls -la src", ["ls", "-la", "src"]],
    ["npm test", ["npm", "test"]],
    ["make FOO=1 -j4", ["make", "FOO=1", "-j4"]],
    ["g++ -o out a.c", ["g++", "-o", "out", "a.c"]],
    ["git log --format=%H@x,y:z", ["git", "log", "--format=%H@x,y:z"]],
    ["echo done", ["echo", "done"]],
  ])("%j is one command, as the parser reads it", async (script, words) => {
    const expected = { kind: "plain", commands: [words], globbed: [false] };
    expect(splitPlainWords(script)).toEqual(expected);
    expect(await splitScriptByParser(script)).toEqual(expected);
    expect(await splitScript(script)).toEqual(expected);
  });
});

describe("splitPlainWords: scripts left to the parser", () => {
  it.each([
    ["FOO=1 make", { kind: "not-plain", reason: expect.stringMatching(/variable assignment/) }],
    ["if", { kind: "not-plain", reason: expect.stringMatching(/syntax error/) }],
    ["export A", { kind: "not-plain", reason: expect.stringMatching(/declaration/) }],
    ["echo *", { kind: "plain", commands: [["echo", "*"]], globbed: [true] }],
    ["a  b", { kind: "plain", commands: [["a", "b"]], globbed: [false] }],
    [" a", { kind: "plain", commands: [["a"]], globbed: [false] }],
    ["a\tb", { kind: "plain", commands: [["a", "b"]], globbed: [false] }],
    ["echo ==", { kind: "not-plain", reason: expect.stringMatching(/syntax error/) }],
    ["x@y z", { kind: "not-plain", reason: expect.stringMatching(/syntax error/) }],
    ["echo 'a b'", { kind: "plain", commands: [["echo", "a b"]], globbed: [false] }],
    ["time make", { kind: "plain", commands: [["time", "make"]], globbed: [false] }],
    ["-x a", { kind: "plain", commands: [["-x", "a"]], globbed: [false] }],
    ["", { kind: "not-plain", reason: "empty script" }],
  ])("%j", async (script, expected) => {
    expect(splitPlainWords(script)).toBeUndefined();
    expect(await splitScript(script)).toEqual(expected);
    expect(await splitScript(script)).toEqual(await splitScriptByParser(script));
  });

  it("a script of plain words over the length limit is refused as too long, not split", async () => {
    const script = `echo${" a".repeat(MAX_SPLIT_SCRIPT_CHARS / 2)}`;
    expect(splitPlainWords(script)).toMatchObject({ kind: "plain" });
    expect(await splitScript(script)).toEqual({ kind: "not-plain", reason: expect.stringMatching(/too long/) });
  });
});
