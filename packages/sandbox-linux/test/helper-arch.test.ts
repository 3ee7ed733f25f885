// The helper is shipped for x86-64 and aarch64 and chosen by `process.arch`. Here: the choice, the
// typed refusal on any other architecture, that each shipped file is a static executable for the
// machine its directory names, and the foreign-architecture helper's probe run under qemu-user.
//
// What the qemu run proves (and what it does not): qemu-user translates the helper's system calls to
// the host kernel's. It refuses prctl(PR_SET_SECCOMP) outright (EINVAL: a filter written for aarch64
// numbers would break the emulator's own x86-64 calls) and does not know landlock_create_ruleset
// (ENOSYS). So under qemu the aarch64 helper starts, parses its arguments, asks for the Landlock ABI
// (0), finds that it cannot install seccomp and reports `seccomp=unavailable`, and a run refuses to
// start its command (exit 125): the build is a working aarch64 program that fails closed. Whether its
// seccomp filter and Landlock rules hold on a real arm64 kernel is NOT shown here; that needs an arm64
// machine (the package README says so).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { failInCi, skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { SandboxError, SandboxManager } from "@shellgate/sandbox";
import { LinuxSandboxError } from "../src/errors.js";
import { HELPER_NAME, HELPER_TARGETS, LinuxHelperArchitectureError, helperTarget, locateHelper } from "../src/helper-path.js";
import { createLinuxSandboxBackend } from "../src/index.js";
import { HELPER_TARGETS as BUILT_TARGETS, helperProblem, hostTarget } from "../scripts/helper-targets.mjs";
import { run } from "./support.js";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const shipped = (target: string) => path.join(pkg, "dist", "native", target, HELPER_NAME);
const onLinux = process.platform === "linux";

describe("the helper's architecture", () => {
  it("maps x64 and arm64 to their builds, the same directories the build writes", () => {
    expect(helperTarget("x64")).toBe("linux-x64");
    expect(helperTarget("arm64")).toBe("linux-arm64");
    expect(Object.values(HELPER_TARGETS).sort()).toEqual(Object.keys(BUILT_TARGETS).sort());
    for (const [arch, target] of Object.entries(HELPER_TARGETS)) expect(hostTarget(arch)).toBe(target);
  });

  it("refuses every other architecture with a typed error naming it", () => {
    for (const arch of ["ia32", "riscv64", "ppc64", "s390x", "loong64", "arm", "toString", "__proto__"]) {
      let caught: unknown;
      try {
        helperTarget(arch);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(LinuxHelperArchitectureError);
      expect(caught).toBeInstanceOf(LinuxSandboxError);
      expect(caught).toBeInstanceOf(SandboxError);
      const e = caught as LinuxHelperArchitectureError;
      expect(e.name).toBe("LinuxHelperArchitectureError");
      expect(e.code).toBe("SANDBOX_TRANSFORM_FAILED");
      expect(e.failure).toBe("unavailable");
      expect(e.arch).toBe(arch);
      expect(e.message).toContain(`no sandbox helper for this architecture (${arch})`);
    }
  });

  skipUnless(onLinux ? undefined : "not Linux").describe("on Linux with an unsupported process.arch", () => {
    const realArch = Object.getOwnPropertyDescriptor(process, "arch") as PropertyDescriptor;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sg-helper-arch-"));
    afterAll(() => {
      Object.defineProperty(process, "arch", realArch);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("locateHelper throws, and the backend is unavailable with that reason (never a wrong-arch helper)", async () => {
      Object.defineProperty(process, "arch", { ...realArch, value: "riscv64" });
      try {
        expect(() => locateHelper()).toThrow(LinuxHelperArchitectureError);
        const manager = new SandboxManager();
        // its own probe cache file: a fresh probe, not one another test already made
        const backend = createLinuxSandboxBackend({ probeCacheFile: path.join(dir, "probe.json") });
        manager.register(backend);
        const availability = await manager.availability(backend);
        expect(availability.available).toBe(false);
        expect(availability.available ? "" : availability.reason).toContain("no sandbox helper for this architecture (riscv64)");
      } finally {
        Object.defineProperty(process, "arch", realArch);
      }
    });
  });
});

const host = onLinux ? hostTarget() : undefined;
const hostSkip = !onLinux ? "not Linux" : !host ? `no helper for ${process.arch}` : fs.existsSync(shipped(host)) ? undefined : "helper not built (run the package build)";

describe.skipIf(hostSkip !== undefined)(`the host's helper${hostSkip ? ` (skipped: ${hostSkip})` : ""}`, () => {
  it("is the one locateHelper finds", () => {
    expect(locateHelper()).toBe(shipped(host as string));
  });
});

const foreign = Object.keys(BUILT_TARGETS).find((t) => t !== host);
const qemuArch = foreign === "linux-arm64" ? "aarch64" : "x86_64";
const qemu = `/usr/bin/qemu-${qemuArch}-static`;
// With CI=true the skip itself fails: CI installs the cross compiler and qemu.
const crossSkip = failInCi(
  hostSkip ??
    (!foreign
      ? "no foreign target"
      : !fs.existsSync(shipped(foreign))
        ? `${foreign} helper not built (install ${BUILT_TARGETS[foreign as keyof typeof BUILT_TARGETS].debianPackages.join(" ")}, then run the package build)`
        : !fs.existsSync(qemu)
          ? `${qemu} missing (Debian package qemu-user-static)`
          : undefined),
  "the cross-built helper and qemu-user are present (CI=true)",
);

describe.skipIf(crossSkip !== undefined)(`the ${foreign ?? "foreign"} helper under qemu-user${crossSkip ? ` (skipped: ${crossSkip})` : ""}`, () => {
  const helper = shipped(foreign as string);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sg-helper-qemu-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("both shipped helpers are static executables for the machine their directory names", () => {
    for (const target of Object.keys(BUILT_TARGETS)) expect(helperProblem(shipped(target), target)).toBeUndefined();
    // and the check can tell them apart
    expect(helperProblem(shipped(host as string), foreign as string)).toMatch(/not linux-/);
  });

  it("is not runnable here directly (a control: this really is a foreign binary)", () => {
    const direct = spawnSync(helper, ["--probe"], { encoding: "utf8" });
    // ENOEXEC without a binfmt handler; with one registered the kernel hands it to qemu itself
    if (direct.error) expect((direct.error as NodeJS.ErrnoException).code).toBe("ENOEXEC");
  });

  it("reports its probe, and never a seccomp filter that failed to hold", async () => {
    const r = await run([qemu, helper, "--probe"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^landlock_abi=\d+\nseccomp=(ok|unavailable)\n$/);
    // "unavailable" comes with the refused call on stderr (qemu-user: prctl(PR_SET_SECCOMP) EINVAL)
    if (/seccomp=unavailable/.test(r.stdout)) expect(r.stderr).toMatch(/^shellgate-sandbox-helper: .*SECCOMP/);
    else expect(r.stderr).toBe("");
  });

  it("fails closed on bad arguments, and does not start a command it cannot confine", async () => {
    const bad = await run([qemu, helper, "--net", "maybe", "--", "true"]);
    expect(bad.code).toBe(125);
    expect(bad.stderr).toMatch(/shellgate-sandbox-helper/);

    const probe = await run([qemu, helper, "--probe"]);
    const marker = path.join(dir, "ran");
    const r = await run([qemu, helper, "--net", "off", "--", "/bin/sh", "-c", `echo ran > ${marker}`]);
    if (/seccomp=unavailable/.test(probe.stdout)) {
      // qemu-user refuses seccomp: the helper must stop before the command, not run it unconfined
      expect(r.code).toBe(125);
      expect(r.stderr).toMatch(/seccomp/i);
      expect(fs.existsSync(marker)).toBe(false);
    } else {
      // an emulator that passes seccomp through: the command runs under the filter
      expect(r.code).toBe(0);
      expect(fs.readFileSync(marker, "utf8")).toBe("ran\n");
    }
  });
});
