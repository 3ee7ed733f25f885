// The backend object: its shape, options, availability, plan and transform on a machine that is
// not macOS (which this suite runs on; see runtime.darwin.test.ts for the rest).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  InvalidSandboxPathError,
  isLikelySandboxDenied,
  parseSandboxPolicy,
  SandboxManager,
  SandboxTransformError,
  SandboxUnavailableError,
} from "@shellgate/sandbox";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { createSeatbeltSandboxBackend, seatbeltAvailability, SeatbeltSandboxError, SEATBELT_DENIAL_SIGNALS } from "../src/index.js";
import { toDarwinCanonicalPath } from "../src/testing.js";
import { compileArgv } from "./sbpl/evaluator.js";
import { kernelPath, makeLayout, PLAN_ENV, removeLayout } from "./support.js";

const L = makeLayout();
afterAll(() => removeLayout(L));
const ws = L.workspace;
const spec = (argv: string[] = ["touch", "x"], cwd = ws) => ({ argv, cwd, env: PLAN_ENV });
const onlyWs = { excludeSlashTmp: true, excludeTmpdirEnvVar: true };

describe("createSeatbeltSandboxBackend", () => {
  it("has the contract's shape and registers with a manager", () => {
    const b = createSeatbeltSandboxBackend();
    expect(b).toMatchObject({ name: "seatbelt", platform: "darwin", sandboxType: "seatbelt", envMarkers: { CODEX_SANDBOX: "seatbelt" } });
    expect(b.denialSignals).toEqual({ exitCodes: [], signals: [], refusalErrnos: ["EPERM", "EROFS"] });
    new SandboxManager({ platform: "darwin" }).register(b);
  });

  it("takes no options; sandboxExecPath in particular is refused", () => {
    expect(() => createSeatbeltSandboxBackend({})).not.toThrow();
    const e = (() => {
      try {
        createSeatbeltSandboxBackend({ sandboxExecPath: "/tmp/sandbox-exec" } as never);
      } catch (error) {
        return error;
      }
    })();
    expect(e).toBeInstanceOf(SeatbeltSandboxError);
    expect(e).toBeInstanceOf(SandboxTransformError);
    expect(e).toMatchObject({ code: "SANDBOX_TRANSFORM_FAILED", backend: "seatbelt", failure: "invalid-options" });
    expect((e as Error).message).toMatch(/always runs \/usr\/bin\/sandbox-exec/);
    expect(() => createSeatbeltSandboxBackend({ allowNetwork: true } as never)).toThrow(/unknown option allowNetwork/);
  });

  it("availability: macOS with /usr/bin/sandbox-exec, and says why not otherwise", async () => {
    expect(seatbeltAvailability("darwin", true)).toEqual({ available: true, isolation: "seatbelt" });
    expect(seatbeltAvailability("darwin", false)).toEqual({ available: false, reason: "/usr/bin/sandbox-exec is missing" });
    expect(seatbeltAvailability("linux", true)).toEqual({ available: false, reason: "Seatbelt is macOS only (this is linux)" });
    if (process.platform !== "darwin") {
      expect(await createSeatbeltSandboxBackend().isAvailable()).toMatchObject({ available: false });
    }
  });
});

describe("plan (any OS, no side effects)", () => {
  it("is exactly /usr/bin/sandbox-exec -p PROFILE -DNAME=VALUE… -- CMD, with every path a parameter", async () => {
    const plan = await createSeatbeltSandboxBackend().plan(spec(["-dash", "a b"]), parseSandboxPolicy({ mode: "workspace-write", ...onlyWs }), { sandboxPolicyCwd: ws });
    expect(plan).toMatchObject({ backend: "seatbelt", sandboxType: "seatbelt", isolation: "seatbelt", cwd: ws, env: {}, unsetEnv: [] });
    expect(plan.argv.slice(0, 2)).toEqual(["/usr/bin/sandbox-exec", "-p"]);
    const dashes = plan.argv.indexOf("--");
    expect(plan.argv.slice(3, dashes).every((a) => /^-D[A-Z_0-9]+=\//.test(a))).toBe(true);
    expect(plan.argv.slice(dashes + 1)).toEqual(["-dash", "a b"]);
    const { params } = compileArgv(plan.argv);
    expect(params["WRITABLE_ROOT_0"]).toBe(kernelPath(ws));
    // planned on Linux under /tmp, the root is named as macOS has it
    if (ws.startsWith("/tmp/")) expect(params["WRITABLE_ROOT_0"]).toBe(`/private${ws}`);
    expect(Object.values(params)).toContain(kernelPath(path.join(ws, ".git")));
    expect(plan.plan).toMatchObject({ network: false, writableRoots: [kernelPath(ws)], parameters: params, profile: plan.argv[2] });
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });

  it("what git would run or read for the workspace's repository is a read-only parameter too", async () => {
    const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-seatbelt-git-")));
    try {
      fs.mkdirSync(path.join(repo, ".git"));
      fs.writeFileSync(path.join(repo, ".git", "config"), "[core]\n\thooksPath = .husky/_\n\tfsmonitor = ./tools/mon\n[include]\n\tpath = ../team.gitconfig\n");
      const plan = await createSeatbeltSandboxBackend().plan(spec(["true"], repo), parseSandboxPolicy({ mode: "workspace-write", ...onlyWs }), { sandboxPolicyCwd: repo });
      const values = Object.values(compileArgv(plan.argv).params);
      for (const held of [".husky/_", "tools/mon", "team.gitconfig"]) expect(values).toContain(kernelPath(path.join(repo, held)));
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });

  it("creates nothing, even for missing carve-outs", async () => {
    await createSeatbeltSandboxBackend().plan(spec(), parseSandboxPolicy({ mode: "workspace-write", ...onlyWs }), { sandboxPolicyCwd: ws });
    expect(fs.readdirSync(ws)).toEqual([".git"]);
  });

  it("a policy that needs no sandbox plans the command as it is", async () => {
    const plan = await createSeatbeltSandboxBackend().plan(spec(), parseSandboxPolicy({ mode: "danger-full-access" }), { sandboxPolicyCwd: ws });
    expect(plan).toMatchObject({ sandboxType: "none", isolation: "none", argv: ["touch", "x"] });
  });

  it("the manager adds the markers: CODEX_SANDBOX=seatbelt and the network one", async () => {
    const manager = new SandboxManager({ platform: "darwin" });
    manager.register(createSeatbeltSandboxBackend());
    const off = await manager.plan(spec(), parseSandboxPolicy({ mode: "workspace-write", ...onlyWs }), { sandboxPolicyCwd: ws, backend: "seatbelt" });
    expect(off.env).toEqual({ CODEX_SANDBOX: "seatbelt", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
    const on = await manager.plan(spec(), parseSandboxPolicy({ mode: "workspace-write", networkAccess: true, ...onlyWs }), { sandboxPolicyCwd: ws, backend: "seatbelt" });
    expect(on.env).toEqual({ CODEX_SANDBOX: "seatbelt" });
  });
});

describe("refusals: never weaker than asked", () => {
  it("a workspace whose path holds a backslash keeps its carve-outs (a backslash is part of a name on POSIX)", async () => {
    const odd = path.join(L.base, "a\\b");
    fs.mkdirSync(path.join(odd, ".git"), { recursive: true });
    const plan = await createSeatbeltSandboxBackend().plan(spec(["true"], odd), parseSandboxPolicy({ mode: "workspace-write", ...onlyWs }), { sandboxPolicyCwd: odd });
    const params = plan.argv.filter((a) => a.startsWith("-DREAD_ONLY_"));
    expect(params.some((p) => p.endsWith(`${toDarwinCanonicalPath(odd)}/.git`)), params.join("\n")).toBe(true);
  });

  it("a cwd inside a denied path is an InvalidSandboxPathError; a writable root inside one is not expressible", async () => {
    const denied = parseSandboxPolicy({ mode: "workspace-write", ...onlyWs, deniedReadPaths: [L.base] });
    await expect(createSeatbeltSandboxBackend().plan(spec(), denied, { sandboxPolicyCwd: ws })).rejects.toBeInstanceOf(InvalidSandboxPathError);
    const rootInDenied = parseSandboxPolicy({ mode: "workspace-write", ...onlyWs, writableRoots: [L.extra], deniedReadPaths: [L.extra] });
    await expect(createSeatbeltSandboxBackend().plan(spec(), rootInDenied, { sandboxPolicyCwd: ws })).rejects.toMatchObject({ failure: "not-expressible" });
    // control: the same denied path with the root elsewhere plans
    const fine = parseSandboxPolicy({ mode: "workspace-write", ...onlyWs, deniedReadPaths: [L.extra] });
    await expect(createSeatbeltSandboxBackend().plan(spec(), fine, { sandboxPolicyCwd: ws })).resolves.toMatchObject({ sandboxType: "seatbelt" });
  });

  skipUnless(process.platform === "darwin" ? "on macOS, where sandbox-exec is available" : undefined).it("transform here: the run is computed, then refused as unavailable (never run unsandboxed)", async () => {
    const b = createSeatbeltSandboxBackend();
    const error = await b.transform(spec(["true"]), parseSandboxPolicy({ mode: "workspace-write", ...onlyWs }), { sandboxPolicyCwd: ws }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as Error).message).toContain("Seatbelt is macOS only");
    // bad input is reported as such first, on every machine
    await expect(b.transform(spec(["no-such-program-xyz"]), parseSandboxPolicy({ mode: "workspace-write", ...onlyWs }), { sandboxPolicyCwd: ws })).rejects.toMatchObject({ code: "SANDBOX_COMMAND_NOT_FOUND" });
    // a policy that needs no sandbox still runs, unsandboxed on purpose
    const free = await b.transform(spec(["true"]), parseSandboxPolicy({ mode: "danger-full-access" }), { sandboxPolicyCwd: ws });
    expect(free).toMatchObject({ sandboxType: "none", argv: ["true"] });
  });
});

describe("denial signals", () => {
  it("Seatbelt's EPERM message counts as a likely denial; an ordinary failure does not", () => {
    const run = { sandboxType: "seatbelt", denialSignals: SEATBELT_DENIAL_SIGNALS };
    expect(isLikelySandboxDenied({ exitCode: 1, stdout: "", stderr: "touch: /etc/x: Operation not permitted\n" }, run)).toBe(true);
    expect(isLikelySandboxDenied({ exitCode: 1, stdout: "", stderr: "deny(1) file-write-create /private/etc/x\n" }, run)).toBe(false);
    expect(isLikelySandboxDenied({ exitCode: 1, stdout: "", stderr: "Sandbox: touch(123) deny(1) file-write-create /etc/x\n" }, run)).toBe(true);
    expect(isLikelySandboxDenied({ exitCode: 1, stdout: "", stderr: "make: *** [all] Error 1\n" }, run)).toBe(false);
  });
});
