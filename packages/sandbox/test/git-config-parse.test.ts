import { describe, expect, it } from "vitest";
import { GitConfigUnreadableError, parseGitConfig } from "../src/index.js";
import { splitCommandWords } from "../src/git-config-parse.js";

const values = (text: string) => parseGitConfig(text, "/x/config").map((e) => [e.section, e.subsection, e.name, e.value]);

function syntaxError(text: string): GitConfigUnreadableError {
  try {
    parseGitConfig(text, "/x/config");
  } catch (error) {
    expect(error).toBeInstanceOf(GitConfigUnreadableError);
    return error as GitConfigUnreadableError;
  }
  throw new Error("no error");
}

describe("parseGitConfig", () => {
  it("reads sections, subsections, the old dotted form and bare booleans, lower-casing what git does", () => {
    const text = [
      "[Core]",
      "\tHooksPath = .husky/_",
      "\tbare",
      '[includeIf "gitdir:~/Work/"]',
      "  path = ../w.inc",
      "[Diff.Pdf]",
      "  textconv = pdftotext",
      '[filter "a\\"b\\\\c"] clean = ./c.sh',
    ].join("\n");
    expect(values(text)).toEqual([
      ["core", undefined, "hookspath", ".husky/_"],
      ["core", undefined, "bare", undefined],
      ["includeif", "gitdir:~/Work/", "path", "../w.inc"],
      ["diff", "pdf", "textconv", "pdftotext"],
      ["filter", 'a"b\\c', "clean", "./c.sh"],
    ]);
  });

  it("resolves quotes, escapes, continuations and comments, and trims outside quotes only", () => {
    const text = [
      "[a]",
      '  q = "  spaced  " tail   ; comment',
      "  e = tab\\tnl\\nq\\\"bs\\\\",
      "  c = one \\",
      "two",
      '  h = "has # and ;" # real comment',
      "  w = a    b",
      "  crlf = x\\\r\ny",
    ].join("\n");
    expect(values(text).map((v) => v[3])).toEqual(['  spaced   tail', 'tab\tnl\nq"bs\\', "one two", "has # and ;", "a    b", "xy"]);
  });

  it("records the line of every key, continuations counted", () => {
    const entries = parseGitConfig("# c\n[a]\n x = 1\\\n2\n y = 3\n", "/f");
    expect(entries.map((e) => e.line)).toEqual([3, 5]);
  });

  it("skips a byte-order mark", () => {
    expect(values("\ufeff[a]\nb = c")).toEqual([["a", undefined, "b", "c"]]);
  });

  it("names file, line and column of what git would call a bad config", () => {
    const unterminated = syntaxError('[a]\n  x = "open\n');
    expect(unterminated.location).toEqual({ line: 2, column: 12 });
    expect(unterminated.message).toContain("/x/config:2:12");
    expect(syntaxError("x = 1").reason).toContain("before any section");
    expect(syntaxError("[a]\n x = \\q").reason).toContain("unknown escape");
    expect(syntaxError('[a "b]\n').reason).toContain("unterminated subsection");
    expect(syntaxError("[a]\n 1x = 2").reason).toContain("unexpected");
    expect(syntaxError("[a]\n x y").reason).toContain("expected `=`");
  });
});

describe("splitCommandWords", () => {
  it("splits like sh for plain words, quotes and escapes, and cuts at command separators", () => {
    expect(splitCommandWords(`node "./my dir/f.js" '--x=a b' c\\ d`)).toEqual(["node", "./my dir/f.js", "--x=a b", "c d"]);
    expect(splitCommandWords("a;./b | ./c&&d")).toEqual(["a", "./b", "./c", "d"]);
    expect(splitCommandWords(`"a\\"b"`)).toEqual(['a"b']);
  });
});
