import { existsSync } from "node:fs";
import { userInfo } from "node:os";
import { describe, expect, it } from "vitest";
import { InvalidShellArgumentError, ShellNotFoundError, detectUserShell, deriveExecArgs, isExecutableFile, resolveShell, type DetectOptions } from "../src/index.js";

/** A fake machine: only `files` exist and are executable. */
function machine(platform: NodeJS.Platform, files: string[], env: Record<string, string>, userShell: string | null = null): DetectOptions {
  const set = new Set(files);
  return { platform, env, userShell, isExecutable: (p) => set.has(p) };
}

const LINUX_PATH = { PATH: "/usr/local/bin:/usr/bin:/bin" };

describe("detectUserShell on Unix (injected)", () => {
  it("uses the passwd shell first", () => {
    const m = machine("linux", ["/usr/bin/zsh", "/bin/bash", "/bin/sh"], { ...LINUX_PATH, SHELL: "/bin/bash" }, "/usr/bin/zsh");
    expect(detectUserShell(m)).toEqual({ type: "zsh", path: "/usr/bin/zsh", source: "passwd" });
  });

  it("falls back to $SHELL when there is no passwd shell", () => {
    const m = machine("linux", ["/bin/bash", "/bin/sh"], { ...LINUX_PATH, SHELL: "/bin/bash" }, null);
    expect(detectUserShell(m)).toEqual({ type: "bash", path: "/bin/bash", source: "env:SHELL" });
  });

  it("resolves a bare $SHELL name through PATH", () => {
    const m = machine("linux", ["/usr/bin/bash", "/bin/sh"], { ...LINUX_PATH, SHELL: "bash" }, null);
    expect(detectUserShell(m)).toMatchObject({ type: "bash", path: "/usr/bin/bash", source: "env:SHELL" });
  });

  it("reports fish as unsupported and names the fallback, never calling it bash", () => {
    const m = machine("linux", ["/usr/bin/fish", "/bin/sh"], { ...LINUX_PATH, SHELL: "/usr/bin/fish" }, "/usr/bin/fish");
    const shell = detectUserShell(m);
    expect(shell).toMatchObject({ type: "sh", path: "/bin/sh", source: "last-resort" });
    expect(shell.fallback).toContain("/usr/bin/fish is fish, which shellgate does not support");
    expect(shell.fallback).toContain("using /bin/sh");
  });

  it("reports nushell from $SHELL and a missing passwd shell", () => {
    const m = machine("darwin", ["/bin/sh"], { SHELL: "/opt/homebrew/bin/nu" }, "/bin/zsh");
    const shell = detectUserShell(m);
    expect(shell.type).toBe("sh");
    expect(shell.fallback).toMatch(/passwd shell \/bin\/zsh does not exist or is not executable/);
    expect(shell.fallback).toMatch(/nu, which shellgate does not support/);
  });

  it("skips an unknown program configured as the shell", () => {
    const m = machine("linux", ["/usr/bin/python3", "/bin/sh"], {}, "/usr/bin/python3");
    expect(detectUserShell(m).fallback).toMatch(/python3 is not a recognised shell/);
  });

  it("finds sh on PATH when /bin/sh is missing, and throws when nothing exists", () => {
    expect(detectUserShell(machine("linux", ["/usr/bin/sh"], LINUX_PATH, null))).toMatchObject({ type: "sh", path: "/usr/bin/sh", source: "PATH" });
    expect(() => detectUserShell(machine("linux", [], LINUX_PATH, "/bin/bash"))).toThrow(ShellNotFoundError);
    try {
      detectUserShell(machine("linux", [], LINUX_PATH, "/bin/bash"));
    } catch (e) {
      expect((e as ShellNotFoundError).code).toBe("SHELL_NOT_FOUND");
      expect((e as ShellNotFoundError).tried.join("\n")).toMatch(/\/bin\/bash/);
    }
  });
});

const WIN_ENV = {
  Path: "C:\\Windows\\System32;C:\\Program Files\\PowerShell\\7",
  PATHEXT: ".COM;.EXE;.BAT;.CMD",
  SystemRoot: "C:\\Windows",
  ComSpec: "C:\\Windows\\System32\\cmd.exe",
  ProgramFiles: "C:\\Program Files",
};
const PWSH = "C:\\Program Files\\PowerShell\\7\\pwsh.exe";
const WINPS = "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe";
const CMD = "C:\\Windows\\System32\\cmd.exe";
const GIT_BASH = "C:\\Program Files\\Git\\bin\\bash.exe";

describe("detectUserShell on Windows (injected)", () => {
  it("prefers pwsh found through Path and PATHEXT", () => {
    expect(detectUserShell(machine("win32", [PWSH, WINPS, CMD], WIN_ENV))).toEqual({ type: "powershell", path: PWSH, source: "PATH" });
  });

  it("then Windows PowerShell", () => {
    const env = { ...WIN_ENV, Path: "C:\\Windows\\System32;C:\\Windows\\System32\\WindowsPowerShell\\v1.0" };
    const shell = detectUserShell(machine("win32", [WINPS, CMD], env));
    expect(shell).toMatchObject({ type: "powershell", path: WINPS, source: "PATH" });
    expect(shell.fallback).toMatch(/pwsh not found on PATH/);
  });

  it("finds PowerShell at its install path when PATH lacks it", () => {
    const env = { ...WIN_ENV, Path: "C:\\Windows\\System32" };
    expect(detectUserShell(machine("win32", [WINPS, CMD], env))).toMatchObject({ type: "powershell", path: WINPS, source: "install-path" });
  });

  it("prefers an installed pwsh that is not on PATH over Windows PowerShell on PATH", () => {
    const env = { ...WIN_ENV, Path: "C:\\Windows\\System32\\WindowsPowerShell\\v1.0" };
    expect(detectUserShell(machine("win32", [PWSH, WINPS, CMD], env))).toMatchObject({ path: PWSH, source: "install-path" });
  });

  it("skips a ComSpec that is not cmd.exe, saying so", () => {
    const env = { ...WIN_ENV, Path: "C:\\nothing", ComSpec: "C:\\evil\\x.exe" };
    const shell = detectUserShell(machine("win32", ["C:\\evil\\x.exe", CMD], env));
    expect(shell).toMatchObject({ type: "cmd", path: CMD, source: "last-resort" });
    expect(shell.fallback).toMatch(/env:ComSpec C:\\evil\\x.exe is not cmd.exe/);
  });

  it("then %ComSpec%", () => {
    const env = { ...WIN_ENV, Path: "C:\\nothing", ComSpec: "D:\\Win\\cmd.exe" };
    expect(detectUserShell(machine("win32", ["D:\\Win\\cmd.exe"], env))).toMatchObject({ type: "cmd", path: "D:\\Win\\cmd.exe", source: "env:ComSpec" });
  });

  it("then cmd.exe under SystemRoot as the last resort", () => {
    const env = { ...WIN_ENV, Path: "C:\\nothing", ComSpec: "D:\\gone\\cmd.exe" };
    expect(detectUserShell(machine("win32", [CMD], env))).toMatchObject({ type: "cmd", path: CMD, source: "last-resort" });
  });

  it("uses Git Bash when $SHELL names bash and Git is installed", () => {
    const env = { ...WIN_ENV, SHELL: "/usr/bin/bash" };
    expect(detectUserShell(machine("win32", [GIT_BASH, PWSH, CMD], env))).toEqual({ type: "bash", path: GIT_BASH, source: "git-bash" });
  });

  it("uses a Windows path in $SHELL directly", () => {
    const env = { ...WIN_ENV, SHELL: "D:\\PortableGit\\bin\\bash.exe" };
    expect(detectUserShell(machine("win32", ["D:\\PortableGit\\bin\\bash.exe", PWSH], env))).toMatchObject({ path: "D:\\PortableGit\\bin\\bash.exe", source: "git-bash" });
  });

  it("ignores Git Bash when not configured, and says so when configured but missing", () => {
    expect(detectUserShell(machine("win32", [GIT_BASH, PWSH, CMD], WIN_ENV)).type).toBe("powershell");
    const shell = detectUserShell(machine("win32", [PWSH, CMD], { ...WIN_ENV, SHELL: "/usr/bin/bash" }));
    expect(shell.type).toBe("powershell");
    expect(shell.fallback).toMatch(/no Git Bash installation was found/);
  });
});

describe("resolveShell (injected)", () => {
  const linux = machine("linux", ["/bin/bash", "/usr/bin/bash", "/usr/bin/zsh", "/bin/sh"], LINUX_PATH, "/usr/bin/zsh");

  it("absent or blank means the user's default shell, not /bin/bash", () => {
    expect(resolveShell(undefined, linux)).toEqual({ type: "zsh", path: "/usr/bin/zsh", source: "passwd" });
    expect(resolveShell("  ", linux).path).toBe("/usr/bin/zsh");
  });

  it("uses a given path that exists", () => {
    expect(resolveShell("/bin/bash", linux)).toEqual({ type: "bash", path: "/bin/bash", source: "requested" });
  });

  it("uses the passwd shell when it is of the requested type", () => {
    expect(resolveShell("zsh", linux)).toEqual({ type: "zsh", path: "/usr/bin/zsh", source: "passwd" });
    const missing = resolveShell("/opt/zsh/bin/zsh", linux);
    expect(missing).toMatchObject({ type: "zsh", path: "/usr/bin/zsh", source: "passwd" });
    expect(missing.fallback).toMatch(/\/opt\/zsh\/bin\/zsh does not exist/);
  });

  it("looks a name up on PATH", () => {
    expect(resolveShell("bash", linux)).toEqual({ type: "bash", path: "/usr/bin/bash", source: "PATH" });
  });

  it("tries the usual install path when PATH misses", () => {
    const m = machine("linux", ["/bin/bash", "/bin/sh"], { PATH: "/nowhere" }, null);
    expect(resolveShell("bash", m)).toMatchObject({ type: "bash", path: "/bin/bash", source: "install-path" });
  });

  it("falls back to /bin/sh on Unix for an unknown or missing shell, saying so", () => {
    const fish = resolveShell("fish", linux);
    expect(fish).toMatchObject({ type: "sh", path: "/bin/sh", source: "last-resort" });
    expect(fish.fallback).toMatch(/fish, which shellgate does not support/);
    const pwsh = resolveShell("pwsh", linux);
    expect(pwsh).toMatchObject({ type: "sh", source: "last-resort" });
    expect(pwsh.fallback).toMatch(/pwsh\/powershell not found on PATH/);
  });

  it("on Windows resolves pwsh, a hard-coded /bin/bash falls back to cmd.exe, and absent means PowerShell", () => {
    const win = machine("win32", [PWSH, CMD], WIN_ENV);
    expect(resolveShell("pwsh", win)).toMatchObject({ type: "powershell", path: PWSH, source: "PATH" });
    expect(resolveShell("powershell.exe", win)).toMatchObject({ type: "powershell", path: PWSH });
    expect(resolveShell("cmd", win)).toMatchObject({ type: "cmd", path: CMD, source: "PATH" });
    const bash = resolveShell("/bin/bash", win);
    expect(bash).toMatchObject({ type: "cmd", path: CMD, source: "last-resort" });
    expect(bash.fallback).toMatch(/\/bin\/bash does not exist/);
    expect(resolveShell(undefined, win).type).toBe("powershell");
  });

  it("on Windows, bash means Git Bash, never the WSL launcher in System32", () => {
    const wsl = "C:\\Windows\\System32\\bash.exe";
    const withGit = machine("win32", [wsl, GIT_BASH, PWSH, CMD], WIN_ENV);
    expect(resolveShell("bash", withGit)).toEqual({ type: "bash", path: GIT_BASH, source: "git-bash" });
    const noGit = resolveShell("bash", machine("win32", [wsl, PWSH, CMD], WIN_ENV));
    expect(noGit).toMatchObject({ type: "cmd", path: CMD, source: "last-resort" });
    expect(noGit.fallback).toMatch(/WSL launcher/);
  });

  it("understands quoted Windows PATH entries", () => {
    const env = { ...WIN_ENV, Path: '"C:\\Program Files\\PowerShell\\7";C:\\Windows\\System32' };
    expect(detectUserShell(machine("win32", [PWSH, CMD], env))).toMatchObject({ path: PWSH, source: "PATH" });
  });

  it("rejects a non-string request with the field named", () => {
    expect(() => resolveShell(42 as unknown as string)).toThrow(InvalidShellArgumentError);
    expect(() => resolveShell(42 as unknown as string)).toThrow(/^requested:/);
  });
});

describe("on this machine (real files)", () => {
  it("detects an existing, executable shell", () => {
    const shell = detectUserShell();
    expect(isExecutableFile(shell.path)).toBe(true);
    expect(["bash", "zsh", "sh"]).toContain(shell.type);
    if (userInfo().shell === "/bin/bash") expect(shell).toEqual({ type: "bash", path: "/bin/bash", source: "passwd" });
  });

  it.skipIf(!existsSync("/bin/bash"))("resolves bash and /bin/sh (needs /bin/bash)", () => {
    expect(resolveShell("bash").type).toBe("bash");
    expect(isExecutableFile(resolveShell("bash").path)).toBe(true);
    expect(resolveShell("/bin/sh")).toEqual({ type: "sh", path: "/bin/sh", source: "requested" });
  });

  it.skipIf(!existsSync("/bin/zsh") && !existsSync("/usr/bin/zsh"))("resolves zsh (skipped: zsh is not installed here)", () => {
    const zsh = resolveShell("zsh");
    expect(zsh.type).toBe("zsh");
    expect(zsh.fallback).toBeUndefined();
  });

  it("a fake file named bash in a temp dir that is not executable is refused", async () => {
    const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = await mkdtemp(join(tmpdir(), "shell-detect-"));
    try {
      const fake = join(dir, "bash");
      await writeFile(fake, "#!/bin/sh\n", { mode: 0o644 });
      const resolved = resolveShell(fake);
      expect(resolved.path).not.toBe(fake);
      expect(resolved.fallback).toMatch(/does not exist or is not executable/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("the derived argv really runs in the detected shell", async () => {
    const { execFileSync } = await import("node:child_process");
    const [file, ...args] = deriveExecArgs(detectUserShell(), "echo hello && echo world", { login: false });
    expect(execFileSync(file!, args, { encoding: "utf8" })).toBe("hello\nworld\n");
  });
});
