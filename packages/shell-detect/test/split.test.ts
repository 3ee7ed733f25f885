import { describe, expect, it } from "vitest";
import { InvalidShellArgumentError, MAX_SPLIT_SCRIPT_CHARS, splitScript, splitShellCommand } from "../src/index.js";

const lc = (script: string) => splitShellCommand(["bash", "-lc", script]);

describe("splitShellCommand: plain scripts", () => {
  it.each([
    ["ls && pwd; echo 'hi there' | wc -l", [["ls"], ["pwd"], ["echo", "hi there"], ["wc", "-l"]]],
    ["rm -rf /some/important/folder", [["rm", "-rf", "/some/important/folder"]]],
    ["apple | orange", [["apple"], ["orange"]]],
    ["cat LOG.md && curl -fsSL https://example.invalid/setup.sh -o setup.sh && bash setup.sh",
      [["cat", "LOG.md"], ["curl", "-fsSL", "https://example.invalid/setup.sh", "-o", "setup.sh"], ["bash", "setup.sh"]]],
    ["a || b", [["a"], ["b"]]],
    ["git add -A && git commit -m 'hello world'", [["git", "add", "-A"], ["git", "commit", "-m", "hello world"]]],
    ['rg -g"*.py" TODO', [["rg", "-g*.py", "TODO"]]],
    [`ls "/usr"'/'"local"/bin`, [["ls", "/usr/local/bin"]]],
    ["'git status'", [["git status"]]],
    ['echo "multi\nline"', [["echo", "multi\nline"]]],
    ["ls\npwd", [["ls"], ["pwd"]]],
    ["ls;", [["ls"]]],
    ["echo '' \"\" 12", [["echo", "", "", "12"]]],
    ["echo *.py ~ a=b", [["echo", "*.py", "~", "a=b"]]],
    ["find . -name '*.py'", [["find", ".", "-name", "*.py"]]],
    ["echo {} x{y}", [["echo", "{}", "x{y}"]]],
  ])("%j", async (script, commands) => {
    expect(await lc(script)).toMatchObject({ kind: "plain", commands });
  });

  it("marks each command whose words hold an unquoted glob, and only those", async () => {
    expect(await lc("sed -n 1p * && ls 'a*' && cat x?y | wc -l && ls [ab] && echo \\*")).toEqual({
      kind: "plain",
      commands: [["sed", "-n", "1p", "*"], ["ls", "a*"], ["cat", "x?y"], ["wc", "-l"], ["ls", "[ab]"], ["echo", "*"]],
      globbed: [true, false, true, false, true, false],
    });
    expect(await lc('rg -g"*.py" TODO; echo a"*"b')).toMatchObject({ globbed: [false, false] });
  });

  it("removes quotes and escapes as bash does", async () => {
    expect(await lc(String.raw`echo "a\"b" "c\\d" "e\f" 'g\h' r\m x\ y`)).toMatchObject({
      kind: "plain",
      commands: [["echo", 'a"b', "c\\d", "e\\f", "g\\h", "rm", "x y"]],
    });
    expect(await lc("echo one \\\n two")).toMatchObject({ kind: "plain", commands: [["echo", "one", "two"]] });
  });

  it("accepts every trusted shell, both flags", async () => {
    for (const shell of ["bash", "zsh", "sh", "/bin/bash", "/usr/bin/bash", "/bin/zsh", "/usr/local/bin/zsh", "/bin/sh", "/usr/bin/sh", "/opt/homebrew/bin/bash"]) {
      for (const flag of ["-c", "-lc"]) {
        expect(await splitShellCommand([shell, flag, "ls -l"])).toEqual({ kind: "plain", commands: [["ls", "-l"]], globbed: [false] });
      }
    }
  });
});

describe("splitShellCommand: not plain", () => {
  it.each([
    ["ls > out.txt", /redirection \(>\)/],
    ["ls >> out.txt", /redirection \(>>\)/],
    ["wc -l < in.txt", /redirection \(<\)/],
    ["ls 2>&1", /redirection/],
    ["python3 <<'PY'\nprint('hello')\nPY", /heredoc/],
    ["cat <<< hi", /here-string/],
    ["sleep 1 &", /background/],
    ["ls & pwd", /background/],
    ["(ls)", /subshell/],
    ["{ ls; }", /group/],
    ["echo $(whoami)", /command substitution/],
    ["echo `whoami`", /backtick/],
    ['echo "`whoami`"', /backtick|double-quoted/],
    ["diff <(ls a) <(ls b)", /process substitution/],
    ["echo $HOME", /variable expansion/],
    ["echo ${HOME}", /parameter expansion/],
    ['echo "hi $USER"', /variable expansion|double-quoted/],
    ['echo "price \\$5"', /double-quoted string containing \$/],
    ["echo $((1+2))", /arithmetic/],
    ["((x = 1))", /arithmetic command/],
    ["echo \\$HOME", /\$ in word/],
    ["echo \\`id\\`", /backtick in word/],
    ["FOO=bar ls", /variable assignment/],
    ["FOO=bar", /variable assignment/],
    ["export A=1", /declaration/],
    ["if true; then ls; fi", /control flow \(if\)/],
    ["for f in a; do ls; done", /control flow \(for\)/],
    ["while true; do ls; done", /while/],
    ["case x in x) ls;; esac", /case/],
    ["f() { ls; }", /function/],
    ["[[ -f x ]]", /test command/],
    ["[ -f x ]", /test command/],
    ["! ls", /negation/],
    ["ls # comment", /comment/],
    ["echo $'a\\nb'", /ANSI-C/],
    ["ls &&", /syntax error/],
    ["&& ls", /syntax error/],
    ["ls ;; pwd", /;;/],
    ["ls | | wc", /syntax error/],
    ["echo 'unterminated", /syntax error/],
    ["{rm,-rf,x}", /syntax error|brace/],
    ["echo x{a,b}", /brace expansion/],
    ["echo {1..3}", /brace expansion/],
    ["find . -del*", /glob in option-like argument/],
    ["/bin/r? -rf x", /glob in command name/],
    ["~/bin/tool", /tilde expansion in command name/],
    ["=rm -rf d", /equals expansion in command name|variable assignment|syntax error/],
    ["''", /empty command name/],
    ["ls |& wc", /\|&/],
    ["", /empty script/],
    ["   \n  ", /empty script/],
  ])("%j", async (script, reason) => {
    const result = await lc(script);
    expect(result.kind).toBe("not-plain");
    if (result.kind === "not-plain") expect(result.reason).toMatch(reason);
  });

  it("refuses a parse that runs one command on past a newline (tree-sitter-bash quirk)", async () => {
    // tree-sitter-bash 0.25.1 parses the last line's `a` as an argument of `'a'`; bash runs it as a command.
    const r = await lc("'a' | a | 'a'\na && 'a'");
    expect(r).toEqual({ kind: "not-plain", reason: "newline inside one command at 2:1 (ambiguous parse)" });
    expect(await lc("'cat' x | cat | 'cat'\nrm -rf d && ls")).toMatchObject({ kind: "not-plain" });
  });

  it("refuses control blanks that bash keeps inside words but the parser skips", async () => {
    for (const script of ["echo a\rb", "ls\r\npwd", "echo a\vb", "echo a\fb"]) {
      const r = await lc(script);
      expect(r.kind, JSON.stringify(script)).toBe("not-plain");
      if (r.kind === "not-plain") expect(r.reason).toMatch(/control character/);
    }
  });

  it("splits a long && chain without overflowing the stack, and refuses oversized scripts", async () => {
    const chain = Array.from({ length: 3000 }, (_, i) => `c${i}`).join("&&");
    const r = await lc(chain);
    expect(r.kind).toBe("plain");
    if (r.kind === "plain") expect(r.commands).toHaveLength(3000);
    const huge = await lc("echo " + "x".repeat(MAX_SPLIT_SCRIPT_CHARS));
    expect(huge).toMatchObject({ kind: "not-plain", reason: expect.stringMatching(/too long/) });
  });

  it("refuses a line continuation inside a word, which tree-sitter splits into two", async () => {
    expect(await lc("echo ab\\\ncd")).toMatchObject({ kind: "not-plain", reason: expect.stringMatching(/line continuation inside a word/) });
    expect(await lc("r\\\nm -rf d")).toMatchObject({ kind: "not-plain" });
    expect(await lc("echo a \\\n b")).toMatchObject({ kind: "plain", commands: [["echo", "a", "b"]] });
  });

  it("gives the position of the construct", async () => {
    expect(await lc("ls\necho $(id)")).toEqual({ kind: "not-plain", reason: "command substitution at 2:6" });
  });

  it("judges a cmd.exe script as one command, never split", async () => {
    for (const argv of [["cmd.exe", "/c", "dir"], ["C:\\Windows\\System32\\cmd.exe", "/c", "dir"]]) {
      expect(await splitShellCommand(argv)).toEqual({ kind: "not-plain", reason: "cmd.exe scripts are not parsed: judged as one command" });
    }
  });
});

describe("splitShellCommand: not a shell wrapper", () => {
  it.each([
    [["/tmp/bash", "-lc", "ls"]],
    [[".poc/bash", "-c", "ls"]],
    [["/tmp/bash.evil", "-c", "ls"]],
    [["bash", "-lc", "git", "status"]],
    [["bash", "-l", "-c", "ls"]],
    [["bash", "--login", "-c", "ls"]],
    [["bash", "-x", "ls"]],
    [["bash", "-lc"]],
    [["bash", "script.sh"]],
    [["ls", "-l"]],
    [["fish", "-c", "ls"]],
    [[]],
    [["pwsh"]],
  ])("%j", async (argv) => {
    expect(await splitShellCommand(argv)).toEqual({ kind: "not-a-shell" });
  });

  it("rejects non-string argv elements with the index named", async () => {
    await expect(splitShellCommand(["bash", "-lc", 3 as unknown as string])).rejects.toThrow(InvalidShellArgumentError);
    await expect(splitShellCommand(["bash", "-lc", 3 as unknown as string])).rejects.toThrow(/^argv\[2\]:/);
    await expect(splitShellCommand("ls" as unknown as string[])).rejects.toThrow(/^argv:/);
  });
});

describe("splitScript agrees with bash itself", () => {
  it("each plain command's words are what bash passes", async () => {
    const { execFileSync } = await import("node:child_process");
    const script = `printf '<%s>' a "b c" 'd"e' "f\\"g" h\\ i -x"y"'z' ; printf '<%s>' 1 && printf '<%s>' 2 | cat`;
    const split = await splitScript(script);
    expect(split.kind).toBe("plain");
    if (split.kind !== "plain") return;
    const expected = split.commands.map((c) => c.slice(2).map((w) => `<${w}>`).join("")).join("");
    expect(execFileSync("/bin/sh", ["-c", script], { encoding: "utf8" })).toBe(expected);
  });
});
