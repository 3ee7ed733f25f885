// Reuse keys: equal for the same sandbox, different once the launch, its cwd or env, or any host
// path it mounts from has changed, directly and through the backend's transform.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { parseSandboxPolicy, type ExecEnv, type SandboxPolicyInput } from "@shellgate/sandbox";
import { createLinuxSandboxBackend } from "../src/index.js";
import { reuseKey, type ReuseKeyInput } from "../src/reuse-key.js";
import { baseEnv, bwrapMissing, makeDirs } from "./support.js";

describe("reuseKey", () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "sg-reuse-key-"));
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
  const src = path.join(base, "src");
  const stub = path.join(base, "stub");
  const link = path.join(base, "link");
  fs.mkdirSync(src);
  fs.symlinkSync(src, link);
  const input = (over: Partial<ReuseKeyInput> = {}): ReuseKeyInput => ({
    argv: ["/helper", "--cgroup", "/cg/run-1", "--exec-only", "--", "/bwrap", "--ro-bind", "/", "/", "--bind", src, src, "--ro-bind-try", link, "/l", "--dir", stub, "--ro-bind", stub, stub, "--chdir", src, "--", "/helper", "--command-fd", "3"],
    cgroupDir: "/cg/run-1", cwd: src, env: { A: "1", B: "2" }, placeholders: [stub], executables: ["/bin/sh"],
    ...over,
  });

  it("is equal for the same launch, whatever the run's cgroup is called or the env's order", () => {
    const other = input().argv.map((a) => (a === "/cg/run-1" ? "/cg/run-2" : a));
    expect(reuseKey(input({ argv: other, cgroupDir: "/cg/run-2", env: { B: "2", A: "1" } }))).toBe(reuseKey(input()));
    expect(reuseKey(input())).toMatch(/per-run cgroup/);
  });

  it("differs for another launch, cwd, env, or cgroup parent", () => {
    const key = reuseKey(input());
    expect(reuseKey(input({ argv: [...input().argv.slice(0, -1), "4"] }))).not.toBe(key);
    expect(reuseKey(input({ cwd: base }))).not.toBe(key);
    expect(reuseKey(input({ env: { A: "1", B: "3" } }))).not.toBe(key);
    expect(reuseKey(input({ env: { A: "1" } }))).not.toBe(key);
    const moved = input().argv.map((a) => (a === "/cg/run-1" ? "/elsewhere/run-1" : a));
    expect(reuseKey(input({ argv: moved, cgroupDir: "/elsewhere/run-1" }))).not.toBe(key);
  });

  it("differs once a mounted directory is replaced, even by one that gets the same inode number", () => {
    const key = reuseKey(input());
    expect(reuseKey(input())).toBe(key);
    fs.rmdirSync(src);
    fs.mkdirSync(src);
    expect(reuseKey(input())).not.toBe(key);
  });

  it("differs once a symlink a mount goes through leads elsewhere, or an executable is replaced", () => {
    const other = path.join(base, "other");
    fs.mkdirSync(other);
    const exe = path.join(base, "exe");
    fs.writeFileSync(exe, "");
    const key = reuseKey(input({ executables: [exe] }));
    fs.rmSync(link);
    fs.symlinkSync(other, link);
    const relinked = reuseKey(input({ executables: [exe] }));
    expect(relinked).not.toBe(key);
    fs.rmSync(exe);
    fs.writeFileSync(exe, "");
    expect(reuseKey(input({ executables: [exe] }))).not.toBe(relinked);
  });

  it("differs once what an unchanged symlink leads to is replaced", () => {
    const target = path.join(base, "target");
    const via = path.join(base, "via");
    fs.mkdirSync(target);
    fs.symlinkSync(target, via);
    // Only the link is named in the launch: the key must look through it.
    const argv = ["/bwrap", "--ro-bind", via, "/v", "--", "/helper"];
    const key = reuseKey(input({ argv, cgroupDir: undefined }));
    expect(reuseKey(input({ argv, cgroupDir: undefined }))).toBe(key);
    fs.rmdirSync(target);
    fs.mkdirSync(target);
    expect(reuseKey(input({ argv, cgroupDir: undefined }))).not.toBe(key);
  });

  it("leaves out the placeholders the launch makes itself", () => {
    const key = reuseKey(input());
    fs.mkdirSync(stub);
    expect(reuseKey(input())).toBe(key);
    fs.rmdirSync(stub);
  });
});

skipUnless(await bwrapMissing()).describe("reuse keys of the bubblewrap layer's transforms", () => {
  const dirs = makeDirs("reuse-key");
  const { ws, outside } = dirs;
  const extra = path.join(outside, "extra");
  fs.mkdirSync(extra);
  const backend = createLinuxSandboxBackend();
  const envs: ExecEnv[] = [];
  afterAll(async () => {
    await Promise.all(envs.map((e) => e.cleanup?.()));
    dirs.remove();
  });
  const policyInput: SandboxPolicyInput = { mode: "workspace-write", writableRoots: [extra] };
  const keyOf = async (opts: { argv?: string[]; policy?: SandboxPolicyInput; cwd?: string; env?: Record<string, string> } = {}) => {
    const execEnv = await backend.transform(
      { argv: opts.argv ?? ["true"], cwd: opts.cwd ?? ws, env: opts.env ?? baseEnv() },
      parseSandboxPolicy(opts.policy ?? policyInput),
      { sandboxPolicyCwd: ws },
    );
    envs.push(execEnv);
    if (!execEnv.deferred) throw new Error("no deferred launch");
    return execEnv.deferred.reuseKey;
  };

  it("is equal for two transforms of the same run, and for another command", async () => {
    const key = await keyOf();
    expect(await keyOf()).toBe(key);
    expect(await keyOf({ argv: ["echo", "another", "command"] })).toBe(key);
  });

  it("is equal while a sandbox of that key waits for its command (its placeholders made)", async () => {
    const execEnv = await backend.transform({ argv: ["true"], cwd: ws, env: baseEnv() }, parseSandboxPolicy(policyInput), { sandboxPolicyCwd: ws });
    envs.push(execEnv);
    const deferred = execEnv.deferred;
    if (!deferred) throw new Error("no deferred launch");
    const [file, ...args] = deferred.argv;
    const spare = spawn(file as string, args, { cwd: execEnv.cwd, env: { ...execEnv.env }, stdio: ["ignore", "ignore", "ignore", "pipe"] });
    const ended = new Promise<number | null>((resolve) => spare.on("close", resolve));
    try {
      // the sandbox is up once it holds the placeholder of a protected path that did not exist
      for (let i = 0; i < 100 && !fs.existsSync(path.join(ws, ".codex")); i++) await new Promise((r) => setTimeout(r, 50));
      expect(fs.existsSync(path.join(ws, ".codex"))).toBe(true);
      expect(await keyOf()).toBe(deferred.reuseKey);
    } finally {
      (spare.stdio[3] as NodeJS.WritableStream).end(deferred.payload);
    }
    expect(await ended).toBe(0);
  });

  it("differs after the policy, the cwd or the env changed", async () => {
    const key = await keyOf();
    expect(await keyOf({ policy: { mode: "read-only" } })).not.toBe(key);
    expect(await keyOf({ policy: { ...policyInput, networkAccess: true } })).not.toBe(key);
    const sub = path.join(ws, "sub");
    fs.mkdirSync(sub, { recursive: true });
    expect(await keyOf({ cwd: sub })).not.toBe(key);
    expect(await keyOf({ env: { ...baseEnv(), SG_OTHER: "1" } })).not.toBe(key);
  });

  it("differs after the workspace or a bound directory was removed and re-created", async () => {
    const key = await keyOf();
    fs.rmSync(extra, { recursive: true });
    fs.mkdirSync(extra);
    const again = await keyOf();
    expect(again).not.toBe(key);
    fs.renameSync(ws, `${ws}.old`);
    fs.cpSync(`${ws}.old`, ws, { recursive: true });
    fs.rmSync(`${ws}.old`, { recursive: true });
    expect(await keyOf()).not.toBe(again);
  });
});
