import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidArgvError, isDangerousArgv, isKnownSafeArgv, type HeuristicsOptions } from "../../src/heuristics/index.js";

const win: HeuristicsOptions = { platform: "win32", dialect: "powershell" };
const linux: HeuristicsOptions = { platform: "linux", dialect: "powershell" };
/** Splits a command on spaces: the tables below hold no quoted words. */
const words = (command: string) => command.split(" ");
const safe = (command: string, opts = win) => isKnownSafeArgv(words(command), opts);
const danger = (command: string, opts = win) => isDangerousArgv(words(command), opts);
/** The command as written and with its command name in lower case: PowerShell ignores the case of names. */
const bothCases = (commands: string[]) => commands.flatMap((c) => [c, c.replace(/^\S+/, (name) => name.toLowerCase())]);

describe("PowerShell known-safe: read-only cmdlets", () => {
  it.each(
    bothCases([
      "Get-ChildItem -Path .",
      "Get-ChildItem",
      "Get-ChildItem -Recurse -Filter *.rs src",
      "Get-ChildItem -Force -Depth 2 -File -Name",
      "Get-Content foo.rs",
      "Get-Content -Path foo.rs -TotalCount 20",
      "Get-Content -LiteralPath foo.rs -Head 5",
      "Get-Content -Tail 10 -Encoding utf8 log.txt",
      "Get-Content -Raw -Delimiter ; -ReadCount 0 foo.rs",
      "Get-Content -Stream Zone.Identifier foo.exe",
      "Select-String -Pattern TODO -Path src",
      "Select-String TODO foo.rs -SimpleMatch -CaseSensitive -Context 2",
      "Measure-Object -Line -Word -Character",
      "Select-Object -Skip 200",
      "Select-Object -First 5 -Property Name",
      "Sort-Object -Property Length -Descending",
      "Get-Item foo.rs",
      "Get-Location",
      "Test-Path -Path foo.rs -PathType Leaf",
      "Resolve-Path -Relative src",
      "Write-Output hello",
      "Format-Table -AutoSize",
      "Format-List -Property Name",
      "Out-String -Width 120",
    ]),
  )("%s", (command) => {
    expect(safe(command)).toBe(true);
    expect(safe(command.toUpperCase())).toBe(true);
  });

  it.each([
    "gci -Path .", "dir src", "ls src", "gc foo.rs", "cat foo.rs", "type foo.rs", "sls TODO foo.rs", "measure -Line",
    "select -Skip 200", "sort -Unique", "gi foo.rs", "gl", "pwd", "rvpa src", "echo hi", "write hi", "ft -AutoSize",
    "fl", "GCI", "Gc foo.rs",
  ])("the alias %s", (command) => {
    expect(safe(command)).toBe(true);
  });

  it.each([
    "Get-Content -Pa foo.rs", "Get-Content -Ta 5 foo.rs", "Get-Content -tot 5 foo.rs", "Get-ChildItem -Rec", "Get-ChildItem -Filt *.rs",
    "Select-Object -SkipL 2", "Select-Object -Skip 200", "Select-Object -Fir 1", "Get-ChildItem -s", "Get-ChildItem -ad", "Test-Path -PathT Leaf x",
    "Get-Content -Path:foo.rs", "Get-Content -TotalCount:5 foo.rs", "Get-Content -Path: foo.rs", "Get-ChildItem -Recurse:",
    "Get-ChildItem -Recurse: x", "Get-Content \u2013Path foo.rs", "Get-Content -Verbose -ErrorAction Stop foo.rs", "Get-Content -ea 0 x",
    "Get-Content -- -Path", "Write-Output -NoEnumerate x",
  ])("parameters abbreviated, with a colon or a dash variant: %s", (command) => {
    expect(safe(command)).toBe(true);
  });

  it("`ls`, `cat`, `sort` and `write` are native programs outside Windows, judged as such", () => {
    expect(safe("ls -la", linux)).toBe(true);
    expect(safe("cat foo.rs", linux)).toBe(true);
    expect(safe("sort foo.rs", linux)).toBe(false);
    expect(safe("write user", linux)).toBe(false);
    // PowerShell expands a native program's wildcard outside Windows: file names the workspace chose.
    expect(safe("ls *", linux)).toBe(false);
    expect(safe("ls -la", win)).toBe(false);
    expect(safe("gci -Path .", linux)).toBe(true);
  });
});

describe("PowerShell known-safe: refusals", () => {
  it.each([
    // A parameter the cmdlet does not have, or one this check does not know.
    "Get-Content -Bogus x", "Get-ChildItem -la", "Select-Object -Skp 1",
    // Ambiguous prefixes: PowerShell refuses them, so does this check.
    "Get-Content -E x", "Get-Content -P x", "Select-Object -S 1", "Get-Content -T 5 x", "Get-ChildItem -Fi *.rs", "Select-Object -Sk 1",
    // Parameters that exist but are refused.
    "Get-Content -Wait log", "Get-Content -Credential me x", "Get-Item -Cred me x", "Get-Content -OutVariable v x",
    "Get-Content -ov v x", "Test-Path -Credential me x",
    // A value is missing, or reads as a parameter.
    "Get-Content -Path", "Select-Object -First -Skip 1", "Get-Content -TotalCount: -Raw x",
    // Paths on another machine or provider.
    "Get-Content \\\\host\\share\\x", "Get-ChildItem //host/share", "Get-Content -Path \\\\host\\x", "Get-ChildItem WSMan:\\localhost",
    "Get-Content FileSystem::C:\\x", "Resolve-Path -RelativeBasePath \\\\host\\x y",
    // Cmdlets that are not listed.
    "Where-Object Name -eq x", "Get-Command git", "Get-Process", "Microsoft.PowerShell.Management\\Get-ChildItem", "C:\\tools\\gci.exe",
    "Tee-Object -FilePath out.txt", "cd ..", "Set-Location ..",
  ])("%s", (command) => {
    expect(safe(command)).toBe(false);
  });

  it.each([
    "Set-Content x y", "Add-Content x y", "Out-File x", "New-Item x", "Remove-Item x", "Move-Item a b", "Copy-Item a b", "Rename-Item a b",
    "Start-Process notepad", "Stop-Process -Id 1", "Invoke-WebRequest https://registry.example.org", "iwr https://x.example.com",
    "curl https://x.example.com", "wget https://x.example.com", "Invoke-RestMethod https://x.example.com", "irm https://x.example.com",
    "Invoke-Expression x", "iex x", "Invoke-Command -ScriptBlock x", "Start-Job x", "Set-Item x", "Set-ExecutionPolicy Bypass",
    "New-Alias gc Remove-Item", "Remove-Variable x", "Set-Alias gc Remove-Item", "Set-Variable x 1",
  ])("a cmdlet with side effects is never known-safe (the allowlist never lists one): %s", (command) => {
    expect(safe(command)).toBe(false);
    expect(safe(command, linux)).toBe(false);
    expect(safe(command.toLowerCase())).toBe(false);
  });
});

describe("PowerShell known-safe: external programs", () => {
  it("rg is judged as in a POSIX shell, rg.exe on Windows too", () => {
    expect(safe("rg -n TODO src")).toBe(true);
    expect(safe("rg.exe -n TODO src")).toBe(true);
    expect(safe("RG.EXE TODO")).toBe(true);
    expect(safe("rg --pre sh TODO")).toBe(false);
    expect(safe("rg --search-zip TODO")).toBe(false);
    expect(safe("rg -nz TODO")).toBe(false);
    expect(safe("C:\\tools\\rg.exe TODO")).toBe(false);
    expect(safe("rg -n TODO src", linux)).toBe(true);
    expect(safe("rg TODO *", linux)).toBe(false);
  });

  it("git is judged as in a POSIX shell: never known-safe, its repository's config can run programs", () => {
    for (const command of ["git status", "git.exe log", "git diff", "git rm -f x"]) {
      expect(safe(command)).toBe(false);
      expect(safe(command, linux)).toBe(false);
    }
  });

  it("other programs are not known-safe, even those the POSIX list accepts", () => {
    for (const command of ["grep x y", "head -n 1 x", "wc -l x", "python3 -c x", "bash -lc ls", "whoami"]) expect(safe(command)).toBe(false);
    expect(isKnownSafeArgv([], win)).toBe(false);
  });

  it("an unknown dialect is an input error, not a POSIX judgement", () => {
    const bad = { dialect: "PowerShell" } as unknown as HeuristicsOptions;
    expect(() => isKnownSafeArgv(["gc", "x"], bad)).toThrow(InvalidArgvError);
    expect(() => isDangerousArgv(["rm", "-r", "-fo", "x"], bad)).toThrow(expect.objectContaining({ code: "HEURISTICS_INVALID_ARGV", field: "opts.dialect" }));
  });

  it("the POSIX dialect is the default", () => {
    expect(isKnownSafeArgv(["Get-Content", "x"], { platform: "win32" })).toBe(false);
    expect(isKnownSafeArgv(["grep", "x"], { platform: "win32", dialect: "posix" })).toBe(true);
  });
});

describe("PowerShell dangerous: recursive forced removal", () => {
  it.each(
    bothCases([
      "Remove-Item -Recurse -Force C:\\",
      "Remove-Item -Force -Recurse x",
      "Remove-Item x -Recurse -Force",
      "Remove-Item -r -fo x",
      "Remove-Item -Rec -Forc x",
      "Remove-Item -r -f x",
      "Remove-Item -Recurse:true -Force:true x",
      "Remove-Item \u2013Recurse \u2014Force x",
      "rm -r -fo x",
      "rm -Recurse -Force x",
      "ri -r -fo x",
      "del -r -fo x",
      "erase -Recurse -Force x",
      "rd -r -fo x",
      "rmdir -r -fo x",
      "Microsoft.PowerShell.Management\\Remove-Item -r -fo x",
    ]),
  )("%s", (command) => {
    expect(danger(command)).toBe(true);
    expect(danger(command.toUpperCase())).toBe(true);
    expect(danger(command, linux)).toBe(true);
  });

  it.each(
    bothCases([
      "Remove-Item -Force", "ri -fo", "rm -Force -WhatIf", "Remove-Item -Include *.tmp -Force", "Remove-Item -Filter:x -Force",
      "Remove-Item -Exclude: keep -fo", "del -p x -Force", "Remove-Item -Confirm -Force",
    ]),
  )("forced removal of what the pipeline brings (no path given): %s", (command) => {
    expect(danger(command)).toBe(true);
  });

  it.each(["Remove-Item -Path x -Force", "Remove-Item -LiteralPath x -Force", "ri -LP x -fo", "Remove-Item -Pa:x -Force", "rm -l x -Force", "Remove-Item -Include *.tmp x -Force"])(
    "forced removal of a named path, not recursive: %s is not",
    (command) => {
      expect(danger(command)).toBe(false);
    },
  );

  it.each(["del /s /q x", "del /S /Q x", "del /q /s x", "rd /s /q x", "RD /S /Q x", "rmdir /s /q x", "erase /s /q x", "del /s/q x", "Rd /Q/S x"])(
    "the cmd spelling %s",
    (command) => {
      expect(danger(command)).toBe(true);
    },
  );

  it.each(["cmd /c rd /s /q build", "cmd.exe /C del /s /q x", "CMD /c echo hi & rd /S /Q build", "cmd /k format D:"])(
    "a cmd command inside a PowerShell script, %s",
    (command) => {
      expect(danger(command)).toBe(true);
    },
  );

  it.each([
    "Remove-Item x", "Remove-Item -Recurse x", "cmd /c rd /s build", "cmd rd /s /q x", "Remove-Item -Force x", "rm -r x", "del /s x", "del /q x", "rd /s x",
    "Get-ChildItem -Recurse -Force", "Copy-Item -Recurse -Force a b", "Write-Output Remove-Item -Recurse -Force",
    "Remove-Item -Reverse -Force x", "Remove-Item -Recursive -Force x",
  ])("%s is not", (command) => {
    expect(danger(command)).toBe(false);
  });

  it("the POSIX judgement still applies: a forced rm (the native rm outside Windows), also behind sudo", () => {
    expect(danger("rm -rf x", linux)).toBe(true);
    expect(danger("sudo rm -rf x", linux)).toBe(true);
    expect(danger("sudo Remove-Item -r -fo x", linux)).toBe(true);
  });

  it("the POSIX dialect keeps its judgement: PowerShell spellings are not dangerous there", () => {
    expect(isDangerousArgv(words("Remove-Item -Recurse -Force x"), { platform: "win32" })).toBe(false);
    expect(isDangerousArgv(words("rd /s /q x"), { platform: "win32", dialect: "posix" })).toBe(false);
    expect(isDangerousArgv(words("Format-Volume -DriveLetter D"), { platform: "linux" })).toBe(false);
  });
});

describe("PowerShell dangerous: disks, the recycle bin and the machine", () => {
  it.each(
    bothCases([
      "Format-Volume -DriveLetter D", "Clear-Disk -Number 1 -RemoveData", "Initialize-Disk 1", "Remove-Partition -DriveLetter D",
      "Clear-RecycleBin -Force", "Clear-RecycleBin", "Stop-Computer", "Restart-Computer -Force", "format D:", "Storage\\Format-Volume D",
    ]),
  )("%s", (command) => {
    expect(danger(command)).toBe(true);
  });

  it("none of them is known-safe", () => {
    for (const command of ["Format-Volume", "Clear-Disk", "Stop-Computer"]) expect(safe(command)).toBe(false);
  });
});

describe("PowerShell heuristics: properties", () => {
  /** A word with each letter's case chosen at random. */
  const anyCase = (word: string) =>
    fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((up) => [...word].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(""));
  const dash = fc.constantFrom("-", "\u2013", "\u2014");
  /** `-` + a prefix of `name` at least `min` long, in any case, maybe with `:value`. */
  const parameter = (name: string, min: number) =>
    fc
      .tuple(dash, fc.integer({ min, max: name.length }), fc.constantFrom("", ":true", ":1"))
      .chain(([d, len, value]) => anyCase(name.slice(0, len)).map((p) => `${d}${p}${value}`));
  const operand = fc.constantFrom("x", "C:\\", "build", "./a b", "*");

  it("Remove-Item in any spelling with a -Recurse and a -Force prefix, in any order among its operands, is dangerous", () => {
    const remover = fc.constantFrom("Remove-Item", "rm", "ri", "del", "erase", "rd", "rmdir").chain(anyCase);
    fc.assert(
      fc.property(remover, parameter("recurse", 1), parameter("force", 1), fc.array(operand, { maxLength: 3 }), fc.boolean(), (name, r, f, ops, swap) => {
        const args = swap ? [f, ...ops, r] : [r, ...ops, f];
        expect(isDangerousArgv([name, ...args], win)).toBe(true);
        expect(isDangerousArgv([name, ...args], linux)).toBe(true);
        expect(isKnownSafeArgv([name, ...args], win)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("a verb with side effects is never known-safe, whatever the noun and the arguments (Out-String, which only formats, aside)", () => {
    const verb = fc.constantFrom("Set", "New", "Remove", "Add", "Clear", "Invoke", "Start", "Stop", "Move", "Copy", "Rename", "Out", "Export", "Install", "Update");
    const noun = fc.constantFrom("Content", "Item", "ChildItem", "Location", "Object", "Process", "File", "WebRequest", "Expression", "Job", "Module");
    const word = fc.oneof(operand, parameter("path", 1), parameter("recurse", 1), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(verb, noun, fc.array(word, { maxLength: 4 }), (v, n, args) => {
        expect(isKnownSafeArgv([`${v}-${n}`, ...args], win)).toBe(false);
        expect(isKnownSafeArgv([`${v}-${n}`.toLowerCase(), ...args], linux)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("a refused parameter refuses a read-only cmdlet in any unambiguous spelling", () => {
    // The shortest unambiguous prefix of each (`-wa` is WarningAction's alias, so Wait needs `-wai`).
    const refused = fc
      .constantFrom<[string, string, number]>(
        ["Get-Content", "credential", 1], ["Get-Content", "wait", 3], ["Get-Item", "credential", 1], ["Get-Content", "outvariable", 4],
        ["Test-Path", "credential", 1], ["Select-Object", "pipelinevariable", 2],
      )
      .chain(([cmdlet, name, min]) => parameter(name, min).map((p) => [cmdlet, p] as const));
    fc.assert(
      fc.property(refused, fc.array(operand, { maxLength: 2 }), ([cmdlet, p], ops) => {
        expect(isKnownSafeArgv([cmdlet, ...ops, p, "v"], win)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("arbitrary words never throw", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 6 }), (argv) => {
        expect(typeof isKnownSafeArgv(argv, win)).toBe("boolean");
        expect(typeof isDangerousArgv(argv, linux)).toBe("boolean");
      }),
      { numRuns: 300 },
    );
  });
});
