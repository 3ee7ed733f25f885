import { describe, expect, it } from "vitest";
import { MAX_SPLIT_SCRIPT_CHARS, splitShellCommand } from "../src/index.js";

/** Both spellings: PowerShell 7 and Windows PowerShell 5.1. */
const SHELLS = [["pwsh", "-NoProfile", "-Command"], ["powershell.exe", "-NoProfile", "-Command"]] as const;
const both = <T extends unknown[]>(rows: T[]): [string, ...T][] => SHELLS.flatMap((argv) => rows.map((row): [string, ...T] => [argv[0], ...row]));
const split = (shell: string, script: string) => splitShellCommand([shell, "-NoProfile", "-Command", script]);

describe("PowerShell: plain scripts", () => {
  it.each(both<[string, string[][]]>([
    ["Get-ChildItem -Path .", [["Get-ChildItem", "-Path", "."]]],
    ["Get-Content foo.rs | Select-Object -Skip 200", [["Get-Content", "foo.rs"], ["Select-Object", "-Skip", "200"]]],
    ["git status", [["git", "status"]]],
    ["Remove-Item -Recurse -Force C:\\", [["Remove-Item", "-Recurse", "-Force", "C:\\"]]],
    ["rm -r -fo C:\\", [["rm", "-r", "-fo", "C:\\"]]],
    ["del /s /q build", [["del", "/s", "/q", "build"]]],
    ["rd /s /q build", [["rd", "/s", "/q", "build"]]],
    ["Format-Volume -DriveLetter D", [["Format-Volume", "-DriveLetter", "D"]]],
    ["Clear-Disk -Number 1 -RemoveData", [["Clear-Disk", "-Number", "1", "-RemoveData"]]],
    ["gci; gc README.md | sls TODO | Measure-Object", [["gci"], ["gc", "README.md"], ["sls", "TODO"], ["Measure-Object"]]],
    ["ls; dir src; cat a.txt; type b.txt", [["ls"], ["dir", "src"], ["cat", "a.txt"], ["type", "b.txt"]]],
    ["Get-Item x; Get-Location; Test-Path x; Resolve-Path .\\src", [["Get-Item", "x"], ["Get-Location"], ["Test-Path", "x"], ["Resolve-Path", ".\\src"]]],
    ["Write-Output 'hello world'; echo \"it's\"", [["Write-Output", "hello world"], ["echo", "it's"]]],
    ["rg -n TODO src; rg --pre cat x", [["rg", "-n", "TODO", "src"], ["rg", "--pre", "cat", "x"]]],
    ["Set-Content a.txt hi; Add-Content a.txt more; Out-File o.txt", [["Set-Content", "a.txt", "hi"], ["Add-Content", "a.txt", "more"], ["Out-File", "o.txt"]]],
    ["New-Item x; Move-Item a b; Copy-Item a b; Rename-Item a b", [["New-Item", "x"], ["Move-Item", "a", "b"], ["Copy-Item", "a", "b"], ["Rename-Item", "a", "b"]]],
    ["Start-Process notepad; Stop-Process -Name x; Invoke-WebRequest https://registry.example.org/x", [["Start-Process", "notepad"], ["Stop-Process", "-Name", "x"], ["Invoke-WebRequest", "https://registry.example.org/x"]]],
    ["echo 'it''s' \"a 'b'\"", [["echo", "it's", "a 'b'"]]],
    ["git log -n 5\ngit status", [["git", "log", "-n", "5"], ["git", "status"]]],
    ["git status;", [["git", "status"]]],
    ["Get-ChildItem |\n  Select-Object -First 3", [["Get-ChildItem"], ["Select-Object", "-First", "3"]]],
    ["  git   status  ", [["git", "status"]]],
    ["7z x a.7z", [["7z", "x", "a.7z"]]],
    // Only a `$` name is a variable: `x = 1` runs the command x with two arguments.
    ["x = 1", [["x", "=", "1"]]],
    ["C:\\tools\\rg.exe --files", [["C:\\tools\\rg.exe", "--files"]]],
    // Digits first but no number to PowerShell: a commit hash, a version.
    ["git show 3f2a1b; pip install x==1.2.3", [["git", "show", "3f2a1b"], ["pip", "install", "x==1.2.3"]]],
  ]))("%s %j", async (shell, script, commands) => {
    expect(await split(shell, script)).toEqual({ kind: "plain", commands, globbed: commands.map(() => false), dialect: "powershell" });
  });

  it("allows && and || under PowerShell 7, which has pipeline chains", async () => {
    expect(await split("pwsh", "git fetch && git status || echo failed")).toMatchObject({
      kind: "plain",
      commands: [["git", "fetch"], ["git", "status"], ["echo", "failed"]],
    });
  });

  it("marks unquoted wildcards and a leading ~ (expanded for native programs by PowerShell 7 on Unix)", async () => {
    expect(await split("pwsh", "Get-ChildItem *.rs; ls a?; ls ~/x; ls '*.rs'; ls x~")).toEqual({
      kind: "plain",
      commands: [["Get-ChildItem", "*.rs"], ["ls", "a?"], ["ls", "~/x"], ["ls", "*.rs"], ["ls", "x~"]],
      globbed: [true, true, true, false, false],
      dialect: "powershell",
    });
  });
});

describe("PowerShell: not plain", () => {
  it.each(both<[string, RegExp]>([
    ["ls $x", /^variable or sub-expression \(\$\) at 1:4$/],
    ["ls $env:HOME", /variable/],
    ["echo $(Remove-Item -Recurse -Force C:\\)", /sub-expression \(\$\) at 1:6/],
    ["echo \"a $b\"", /inside a double-quoted string at 1:9/],
    ["echo \"a`nb\"", /backtick escape inside a double-quoted string/],
    ["echo @(1)", /^array, hash table, splatting or here-string \(@\) at 1:6$/],
    ["echo @{a=1}", /@/],
    ["Get-Process @params", /@/],
    ["echo @'\nx\n'@", /@/],
    ["Get-ChildItem | ForEach-Object { Remove-Item $_ }", /script block/],
    ["& git status", /^call operator \(&\) at 1:1$/],
    ["& 'C:\\x.exe'", /call operator/],
    [". .\\profile.ps1", /^dot-sourcing \(\.\) at 1:1$/],
    ["git status > out.txt", /^redirection \(>\) at 1:12$/],
    ["git status 2> err.txt", /redirection \(>\)/],
    ["git status >> out.txt", /redirection \(>\)/],
    ["git status 2>&1", /redirection|call operator/],
    ["Get-Content < x", /redirection \(<\)/],
    ["iex 'Remove-Item x'", /^Invoke-Expression \(iex\) at 1:1 runs a string as code$/],
    ["IEX x", /Invoke-Expression/],
    ["Invoke-Expression x", /Invoke-Expression/],
    ["invoke-expression x", /Invoke-Expression/],
    ["Microsoft.PowerShell.Utility\\Invoke-Expression x", /Invoke-Expression/],
    ["echo a`b", /backtick escape at 1:7/],
    ["git status `\n -s", /backtick/],
    ["echo a,b", /array argument \(,\)/],
    ["Remove-Item a, b", /array argument/],
    ["$x = 1", /variable/],
    ["if (1) { ls }", /parenthesised/],
    ["foreach x", /keyword foreach|syntax error/],
    ["function f { ls }", /script block/],
    ["exit 1", /keyword exit|flow control/],
    ["return", /keyword return|flow control/],
    ["(Get-Item x).Length", /parenthesised expression or sub-command/],
    ["Get-Item (Get-Location)", /parenthesised/],
    ["[IO.File]::Delete('x')", /type literal/],
    ["ls -Force:$true", /variable/],
    ["ls -Path:src", /attached value/],
    ["git -x:", /^parameter with an attached value \(-Name:value\) at 1:7$/],
    ["git --% status $x", /variable/],
    ["cmd /c --% dir", /stop-parsing|--%/],
    ["ls # comment", /^comment \(#\) at 1:4$/],
    ["ls <# c #> x", /redirection \(<\)/],
    ["echo 0x10", /number "0x10".*passes its value/],
    ["echo 1kb", /number "1kb"/],
    ["echo 007", /number "007"/],
    ["echo 1.5", /real number/],
    ["echo 0b11", /number "0b11"/],
    ["echo 1n", /number "1n"/],
    ["echo 2uy", /number "2uy"/],
    ["echo -5", /unary expression/],
    ["echo ''", /empty string argument/],
    ["echo 'a\"b'", /double quote inside/],
    ["echo \"a\"\"b\"", /double quote inside/],
    ["echo 'C:\\dir\\'", /ending in a backslash/],
    ["echo x\"y z\"", /not a plain word|two words/],
    ["echo 'a'b", /syntax error|two words/],
    ["ls -del*", /wildcard in option-like argument|syntax error/],
    ["Get-Ch* x", /command name/],
    ["~/bin/x", /tilde in command name/],
    ["1n", /number "1n" at 1:1 where a command name should be|integer/],
    ["!x", /not a plain word|syntax error|unary/],
    ["+x", /not a plain word|syntax error|unary/],
    ["git status\r\nls", /PowerShell reads it as a quote, dash or blank/],
    ["Remove-Item \u2013Recurse x", /"\u2013" at 1:13/],
    ["echo \u2018a\u2019", /quote, dash or blank/],
    ["ls\u00a0x", /blank/],
    ["echo 'unterminated", /unterminated string at 1:6/],
    ["echo \"unterminated", /unterminated string at 1:6/],
    ["ls |", /syntax error/],
    ["| ls", /syntax error/],
    [";", /empty script/],
    ["", /without a script/],
    ["git status\n| Select-Object -First 1", /\| at the start of a line at 2:1|syntax error/],
    ["ls [ab]", /\[ \]/],
  ]))("%s %j", async (shell, script, reason) => {
    const got = await split(shell, script);
    expect(got).toMatchObject({ kind: "not-plain", dialect: "powershell" });
    if (got.kind === "not-plain") expect(got.reason).toMatch(reason);
  });

  it("refuses && and || under Windows PowerShell 5.1, which has no pipeline chains", async () => {
    expect(await split("powershell.exe", "git fetch && git status")).toEqual({
      kind: "not-plain",
      reason: "pipeline chain (&&) at 1:11 (Windows PowerShell 5.1 has no && or ||)",
      dialect: "powershell",
    });
    expect(await split("powershell", "a || b")).toMatchObject({ kind: "not-plain", reason: /pipeline chain \(\|\|\)/ });
    expect(await split("pwsh", "a &&\n&& b")).toMatchObject({ kind: "not-plain" });
  });

  it("refuses a lone & (call operator or background job) under both editions", async () => {
    for (const shell of ["pwsh", "powershell.exe"]) {
      expect(await split(shell, "git status &")).toMatchObject({ kind: "not-plain", reason: /call operator \(&\) at 1:12/ });
      expect(await split(shell, "a &&& b")).toMatchObject({ kind: "not-plain" });
    }
  });

  it("refuses a script longer than the limit", async () => {
    const script = "ls; ".repeat(MAX_SPLIT_SCRIPT_CHARS / 4 + 1);
    expect(await split("pwsh", script)).toMatchObject({ kind: "not-plain", reason: /too long/ });
  });
});

describe("bash wrappers are unchanged", () => {
  it("a bash split carries no dialect", async () => {
    expect(await splitShellCommand(["bash", "-lc", "git status && ls"])).toEqual({
      kind: "plain",
      commands: [["git", "status"], ["ls"]],
      globbed: [false, false],
    });
    const refused = await splitShellCommand(["bash", "-lc", "echo $(id)"]);
    expect(refused).toEqual({ kind: "not-plain", reason: "command substitution at 1:6" });
  });
});
