// Protected paths that do not exist yet, under the real sandbox: what the command sees, what the
// host is left with after a normal run, a crashed run, and runs of two processes at once.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseSandboxPolicy } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, locateHelper } from "../src/index.js";
import { defaultPlaceholderLockDir } from "../src/testing.js";
import { releasePlaceholders } from "../src/placeholders.js";
import { baseEnv, bwrapMissing, makeDirs, processWithArgsExists, run, runSandboxed, sh } from "./support.js";

const bwrapSkip = await bwrapMissing();
const INDEX = new URL("../dist/index.js", import.meta.url).pathname;
const SANDBOX_INDEX = new URL("../../sandbox/dist/index.js", import.meta.url).pathname;

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A second Node process that sandboxes `script` in `cwd` with this package's build, like another tool would. */
function otherProcess(cwd: string, script: string): { child: ChildProcess; output: () => string; exited: Promise<unknown> } {
  const source = `
    const { createLinuxSandboxBackend } = await import(${JSON.stringify(INDEX)});
    const { parseSandboxPolicy } = await import(${JSON.stringify(SANDBOX_INDEX)});
    const { spawn } = await import("node:child_process");
    const cwd = ${JSON.stringify(cwd)};
    const env = await createLinuxSandboxBackend().transform(
      { argv: ["/bin/sh", "-c", ${JSON.stringify(script)}], cwd, env: { PATH: "/usr/bin:/bin" } },
      // /tmp left out: a crashed run must not leave placeholders in the shared /tmp
      parseSandboxPolicy({ mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true }), { sandboxPolicyCwd: cwd });
    const child = spawn(env.argv[0], env.argv.slice(1), { cwd: env.cwd, env: env.env, stdio: ["ignore", "inherit", "inherit"] });
    child.on("close", async (code) => { await env.cleanup?.(); process.exitCode = code ?? 1; });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", source], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise((resolve) => child.on("close", resolve));
  return { child, output: () => out, exited };
}

describe.skipIf(bwrapSkip !== undefined)(`missing protected paths under bwrap${bwrapSkip ? ` (skipped: ${bwrapSkip})` : ""}`, () => {
  const backend = createLinuxSandboxBackend();
  const all: Array<{ remove: () => void }> = [];
  const workspace = (label: string) => {
    const dirs = makeDirs(label);
    all.push(dirs);
    return dirs.ws;
  };
  afterAll(() => all.forEach((d) => d.remove()));

  it("a missing .codex is an empty read-only directory inside, and nothing is left of it on the host afterwards", async () => {
    const ws = workspace("ph-codex");
    const r = await runSandboxed(backend, sh(
      "test -d .codex && echo IS-DIR; ls -A .codex | wc -l; echo > .codex/config.toml && echo WROTE; mkdir -p .codex/x && echo MADE; echo ok > elsewhere",
    ), { mode: "workspace-write" }, ws);
    expect(r.stdout).toContain("IS-DIR");
    expect(r.stdout).not.toMatch(/WROTE|MADE/);
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(ws, "elsewhere"), "utf8")).toBe("ok\n");
    expect(fs.existsSync(path.join(ws, ".codex"))).toBe(false);
    expect(fs.existsSync(path.join(ws, ".shellgate"))).toBe(false);
  });

  it("a missing nested policy directory gets its placeholder at the first missing component; the rest of the workspace stays writable", async () => {
    const ws = workspace("ph-nested");
    const rules = path.join(ws, ".config", "shellgate", "rules");
    const execEnv = await backend.transform(
      { argv: sh("test -d .config && echo IS-DIR; echo x > .config/x || echo BLOCKED; mkdir -p .config/shellgate/rules || echo BLOCKED-RULES; echo y > elsewhere && echo WROTE"), cwd: ws, env: baseEnv() },
      parseSandboxPolicy({ mode: "workspace-write" }),
      { sandboxPolicyCwd: ws, protectedPaths: [rules] },
    );
    expect(execEnv.argv.join(" ")).toContain(`--dir ${path.join(ws, ".config")} --ro-bind ${path.join(ws, ".config")} ${path.join(ws, ".config")}`);
    // made by the helper when the run starts, under its lock, not by the transform
    expect(fs.existsSync(path.join(ws, ".config"))).toBe(false);
    try {
      const r = await run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } });
      expect(r.stdout).toContain("IS-DIR");
      expect(r.stdout).toContain("BLOCKED\n");
      expect(r.stdout).toContain("BLOCKED-RULES");
      expect(r.stdout).toContain("WROTE");
    } finally {
      await execEnv.cleanup?.();
    }
    expect(fs.readFileSync(path.join(ws, "elsewhere"), "utf8")).toBe("y\n");
    expect(fs.existsSync(path.join(ws, ".config"))).toBe(false);
  });

  it("a crashed run leaves only an empty directory, which the next run works with, treats as no configuration, and removes", async () => {
    const ws = workspace("ph-crash");
    const marker = "sleep 31.25";
    const crashed = otherProcess(ws, `touch started; exec ${marker}`);
    try {
      await waitFor(() => fs.existsSync(path.join(ws, "started")) || crashed.child.exitCode !== null, "the other process's sandbox to start");
      expect(fs.existsSync(path.join(ws, "started")), crashed.output()).toBe(true);
      crashed.child.kill("SIGKILL"); // no cleanup runs
      await crashed.exited;
      await waitFor(() => processWithArgsExists(marker).length === 0, "the crashed sandbox to die with its parent");
    } finally {
      crashed.child.kill("SIGKILL");
    }
    const leftover = path.join(ws, ".codex");
    expect(fs.lstatSync(leftover).isDirectory()).toBe(true);
    expect(fs.readdirSync(leftover)).toEqual([]);
    expect(fs.lstatSync(leftover).mode & 0o7777).toBe(0o1755); // the placeholder's mark

    const r = await runSandboxed(backend, sh(
      "cat .codex/config.toml 2>/dev/null || echo NO-CONFIG; echo > .codex/config.toml || echo BLOCKED; echo ok > after-crash",
    ), { mode: "workspace-write" }, ws);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("NO-CONFIG");
    expect(r.stdout).toContain("BLOCKED");
    expect(fs.readFileSync(path.join(ws, "after-crash"), "utf8")).toBe("ok\n");
    // Recognised by its mark and held by no run: the next run's cleanup removes it.
    expect(fs.existsSync(leftover)).toBe(false);
  });

  it("a user's own empty .codex is held like a placeholder during a run, and stays afterwards", async () => {
    const ws = workspace("ph-own");
    const own = path.join(ws, ".codex");
    fs.mkdirSync(own);
    const r = await runSandboxed(backend, sh("echo > .codex/config.toml || echo BLOCKED"), { mode: "workspace-write" }, ws);
    expect(r.stdout).toContain("BLOCKED");
    expect(fs.readdirSync(own)).toEqual([]);
    expect(fs.lstatSync(own).mode & 0o7777).toBe(0o755);
  });

  it("overlapping runs of one process share a placeholder; the last one to finish removes it", async () => {
    const ws = workspace("ph-overlap");
    const policy = parseSandboxPolicy({ mode: "workspace-write" });
    const long = await backend.transform({ argv: sh("touch started; while [ ! -e go ]; do sleep 0.05; done; echo > .codex/a || echo BLOCKED"), cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws });
    const short = await backend.transform({ argv: sh("echo > .codex/b || echo BLOCKED"), cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws });
    const first = run(long.argv, { cwd: long.cwd, env: { ...long.env } });
    await waitFor(() => fs.existsSync(path.join(ws, "started")), "the long run's sandbox to start");
    const second = await run(short.argv, { cwd: short.cwd, env: { ...short.env } });
    expect(second.stdout).toContain("BLOCKED");
    await short.cleanup?.();
    expect(fs.lstatSync(path.join(ws, ".codex")).isDirectory()).toBe(true); // the long run still has it mounted
    fs.writeFileSync(path.join(ws, "go"), "");
    expect((await first).stdout).toContain("BLOCKED");
    await long.cleanup?.();
    expect(fs.existsSync(path.join(ws, ".codex"))).toBe(false);
    expect(fs.existsSync(path.join(ws, ".shellgate"))).toBe(false);
  });

  it("another process's cleanup cannot take a placeholder from a running sandbox; a plain rmdir (control) would hand it the protected name", async () => {
    const ws = workspace("ph-detach");
    const codex = path.join(ws, ".codex");
    const other = otherProcess(ws, [
      "touch started; while [ ! -e go1 ]; do sleep 0.05; done",
      "mkdir .codex/x 2>/dev/null && echo CREATED-1 || echo BLOCKED-1; touch step1",
      "while [ ! -e go2 ]; do sleep 0.05; done",
      "mkdir -p .codex/x 2>/dev/null && echo CREATED-2 || echo BLOCKED-2; echo done",
    ].join("; "));
    try {
      await waitFor(() => fs.existsSync(path.join(ws, "started")) || other.child.exitCode !== null, "the other process's sandbox to start");
      expect(fs.existsSync(path.join(ws, "started")), other.output()).toBe(true);
      // This process's cleanup of the same placeholder, as after a run of its own.
      await releasePlaceholders(locateHelper() as string, defaultPlaceholderLockDir(), [codex]);
      expect(fs.lstatSync(codex).isDirectory()).toBe(true);
      fs.writeFileSync(path.join(ws, "go1"), "");
      await waitFor(() => fs.existsSync(path.join(ws, "step1")), "the first attempt");
      // Control: the host removes the directory without the locks, as a cleanup that did not
      // check them would. The kernel allows it and detaches the other sandbox's read-only mount.
      fs.rmdirSync(codex);
      fs.writeFileSync(path.join(ws, "go2"), "");
      await other.exited;
    } finally {
      other.child.kill("SIGKILL");
    }
    expect(other.output()).toContain("BLOCKED-1");
    expect(other.output()).not.toContain("CREATED-1");
    expect(other.output()).toContain("CREATED-2");
    expect(fs.existsSync(path.join(codex, "x"))).toBe(true);
  });

  it("a run's cleanup leaves the placeholder in place while another process's sandbox still has it mounted", async () => {
    const ws = workspace("ph-two");
    const mine = await backend.transform({ argv: ["true"], cwd: ws, env: baseEnv() }, parseSandboxPolicy({ mode: "workspace-write" }), { sandboxPolicyCwd: ws });
    const other = otherProcess(ws, "touch started; while [ ! -e go ]; do sleep 0.05; done; mkdir -p .codex/x && echo CREATED; echo done");
    try {
      await waitFor(() => fs.existsSync(path.join(ws, "started")) || other.child.exitCode !== null, "the other process's sandbox to start");
      expect(fs.existsSync(path.join(ws, "started")), other.output()).toBe(true);
      const r = await run(mine.argv, { cwd: mine.cwd, env: { ...mine.env } });
      expect(r.code).toBe(0);
      await mine.cleanup?.();
      expect(fs.lstatSync(path.join(ws, ".codex")).isDirectory()).toBe(true);
      fs.writeFileSync(path.join(ws, "go"), "");
      await other.exited;
    } finally {
      other.child.kill("SIGKILL");
    }
    expect(other.output()).toContain("done");
    expect(other.output()).not.toContain("CREATED");
    expect(fs.existsSync(path.join(ws, ".codex", "x"))).toBe(false);
  });

  it("runs of several processes at once in one workspace never lose a placeholder to each other's cleanup", async () => {
    // Before the helper made placeholders under a lock, runs here failed now and then with "bwrap:
    // Can't find source path …/.codex" or "Unable to open lock file": another process's cleanup
    // removed the directory between this run finding it and its bwrap taking the lock.
    const ws = workspace("ph-many");
    const rounds = 4;
    const script = "echo ran";
    const results: Array<{ code: unknown; out: string }> = [];
    for (let round = 0; round < rounds; round++) {
      const others = Array.from({ length: 5 }, () => otherProcess(ws, script));
      for (const o of others) results.push({ code: await o.exited, out: o.output() });
    }
    const failed = results.filter((r) => r.code !== 0 || !r.out.includes("ran"));
    expect(failed.map((r) => r.out), "runs that failed").toEqual([]);
    // the last run of each round removed every placeholder (the workspace's own .git stays)
    expect(fs.readdirSync(ws).filter((name) => name.startsWith(".") && name !== ".git")).toEqual([]);
    expect(fs.readdirSync(path.join(ws, ".git"))).toEqual(["hooks"]);
  });
  it("kept for the session: a missing .codex is read-only in every run, stays on the host between runs without a run making or removing it, goes when the session's process ends, and is made by the run again when its holder is killed", async () => {
    const ws = workspace("ph-session");
    const codex = path.join(ws, ".codex");
    const source = `
      const { createLinuxSandboxBackend } = await import(${JSON.stringify(INDEX)});
      const { parseSandboxPolicy } = await import(${JSON.stringify(SANDBOX_INDEX)});
      const { spawnSync } = await import("node:child_process");
      const { existsSync, rmdirSync } = await import("node:fs");
      const cwd = ${JSON.stringify(ws)};
      const backend = createLinuxSandboxBackend({ placeholders: "per-session" });
      const policy = parseSandboxPolicy({ mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true });
      const once = async (round) => {
        const env = await backend.transform({ argv: ["/bin/sh", "-c", "echo x > .codex/config.toml || echo REFUSED; rmdir .codex || echo KEPT"], cwd, env: { PATH: "/usr/bin:/bin" } }, policy, { sandboxPolicyCwd: cwd });
        const r = spawnSync(env.argv[0], env.argv.slice(1), { cwd, env: env.env, encoding: "utf8" });
        await env.cleanup?.();
        // Whether the run's own helper makes and releases the placeholder, or leaves it to the holder.
        const who = env.argv.includes("--placeholder") ? "OWN" : "HELD";
        console.log(round, r.status, r.stdout.trim().split("\\n").join(" "), existsSync(cwd + "/.codex") ? "THERE" : "GONE", who);
      };
      for (const round of [1, 2]) await once(round);
      // A holder killed mid-session holds nothing any more, and another process's cleanup may then
      // remove its placeholder (here: rmdir): the next run must not count on it, and the session holds it anew.
      spawnSync("pkill", ["-KILL", "-f", "hold-placeholders.*" + cwd]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      rmdirSync(cwd + "/.codex");
      await once(3);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", source], { cwd: ws, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
    await new Promise((resolve) => child.on("close", resolve));
    expect(out).toContain("1 0 REFUSED KEPT THERE HELD");
    expect(out).toContain("2 0 REFUSED KEPT THERE HELD");
    expect(out).toContain("3 0 REFUSED KEPT THERE HELD");
    // The holder sees its stdin end with the process and removes the placeholder no run holds.
    await waitFor(() => !fs.existsSync(codex), "the session's placeholder to go");
    // Control: the same runs with per-run placeholders leave nothing between them.
    const perRun = await runSandboxed(backend, sh("echo x > .codex/config.toml || echo REFUSED"), { mode: "workspace-write" }, ws);
    expect(perRun.stdout).toContain("REFUSED");
    expect(fs.existsSync(codex)).toBe(false);
  });
});
