import { describe, expect, it } from "vitest";
import { literalCommands } from "../src/index.js";

const lc = (script: string) => literalCommands(["bash", "-lc", script]);

describe("literalCommands: every literal command, for the dangerous scan", () => {
  it.each([
    ["printf x | rm -rf d", [["printf", "x"], ["rm", "-rf", "d"]]],
    ["if true; then rm --force d; fi", [["true"], ["rm", "--force", "d"]]],
    ['rm -rf "$TARGET" >/dev/null', [["rm", "-rf", '"$TARGET"']]],
    ['echo "$(rm -rf d)"', [["echo", '"$(rm -rf d)"'], ["rm", "-rf", "d"]]],
    ["echo `rm -f x`", [["echo", "`rm -f x`"], ["rm", "-f", "x"]]],
    ["for f in a b; do sudo rm -f $f; done", [["sudo", "rm", "-f", "$f"]]],
    ["f() { rm -rf /; }", [["rm", "-rf", "/"]]],
    ["X=$(rm -rf d) ls", [["ls"], ["rm", "-rf", "d"]]],
    ["diff <(rm -rf a) b", [["diff", "<(rm -rf a)", "b"], ["rm", "-rf", "a"]]],
    ["ls && pwd", [["ls"], ["pwd"]]],
  ])("%j", async (script, commands) => {
    expect(await lc(script)).toEqual(commands);
  });

  it("ignores strings, variable-named commands and comments", async () => {
    expect(await lc("echo 'rm -rf d'")).toEqual([["echo", "rm -rf d"]]);
    expect(await lc("cmd=rm; $cmd -rf d")).toEqual([]);
    expect(await lc("ls # rm -rf /")).toEqual([["ls"]]);
  });

  it("walks a long && chain without overflowing the stack", async () => {
    const chain = Array.from({ length: 3000 }, (_, i) => `c${i}`).join(" && ") + " && rm -rf d";
    const commands = await lc(chain);
    expect(commands).toHaveLength(3001);
    expect(commands?.at(-1)).toEqual(["rm", "-rf", "d"]);
  });

  it("is undefined for unparsable scripts and for argv that is no trusted wrapper", async () => {
    expect(await lc("echo (")).toBeUndefined();
    expect(await literalCommands(["/tmp/bash", "-lc", "rm -rf /"])).toBeUndefined();
    expect(await literalCommands(["rm", "-rf", "/"])).toBeUndefined();
  });
});
