// The helper runs on the host (the probe) and is the sandbox's last enforcement step, so a
// sandboxed command must not be able to replace it even when the workspace contains shellgate's
// installation (node_modules, or a checkout of shellgate itself). Here the helper is a copy inside
// a scratch workspace, where the package would be installed; every attempt is first made on the
// host against a second copy (the control).
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { SandboxPolicyInput } from "@shellgate/sandbox";
import { HELPER_NAME } from "../src/helper-path.js";
import { run, runSandboxed, sh } from "./support.js";

const state = vi.hoisted(() => ({ helper: undefined as string | undefined }));
vi.mock("../src/helper-path.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../src/helper-path.js")>();
  return { ...original, locateHelper: () => state.helper };
});

const { locateHelper: realLocate } = await vi.importActual<typeof import("../src/helper-path.js")>("../src/helper-path.js");
const { createLinuxSandboxBackend, probeLinuxSandbox } = await import("../src/index.js");

const real = realLocate();
const base = fs.mkdtempSync(path.join(os.tmpdir(), "sg-helper-loc-"));
const ws = path.join(base, "ws");
const install = (root: string) => {
  const dir = path.join(root, "node_modules", "@shellgate", "sandbox-linux", "dist", "native");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, HELPER_NAME);
  if (real) {
    fs.copyFileSync(real, file);
    fs.chmodSync(file, 0o755);
  }
  return file;
};
const helper = install(ws);
state.helper = helper;
const report = process.platform === "linux" && real ? await probeLinuxSandbox({ refresh: true }) : undefined;
const skip = !real ? "helper not built" : report?.level !== "full" ? report?.reasons.join("; ") ?? "not Linux" : undefined;

const digest = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

describe.skipIf(skip !== undefined)(`the helper inside a writable workspace${skip ? ` (skipped: ${skip})` : ""}`, () => {
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
  const policy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };
  const pkgDist = path.join(ws, "node_modules", "@shellgate", "sandbox-linux", "dist");
  const rel = path.relative(ws, pkgDist);
  const attacks = [
    ["overwrite the helper", `cp /bin/true ${rel}/native/${HELPER_NAME}`],
    ["rename its directory and put another in its place", `mv ${rel}/native ${rel}/native.old && mkdir ${rel}/native && cp /bin/true ${rel}/native/${HELPER_NAME}`],
    ["rename an ancestor directory and rebuild the path", `mv ${rel} ${rel}.old && mkdir -p ${rel}/native && cp /bin/true ${rel}/native/${HELPER_NAME}`],
    ["rename node_modules and rebuild the path", `mv node_modules nm.old && mkdir -p ${rel}/native && cp /bin/true ${rel}/native/${HELPER_NAME}`],
  ] as const;

  it("is the helper this backend uses", async () => {
    expect((await probeLinuxSandbox()).helper.path).toBe(helper);
  });

  for (const [what, script] of attacks) {
    it(`cannot ${what}`, async () => {
      // control: in a second installation the same script replaces the helper
      const other = path.join(base, `control-${what.length}`);
      const otherHelper = install(other);
      const before = digest(otherHelper);
      const control = await run(sh(script), { cwd: other });
      expect(control.stderr).toBe("");
      expect(control.code).toBe(0);
      expect(digest(otherHelper)).not.toBe(before);

      const original = digest(helper);
      const backend = createLinuxSandboxBackend({ processLimit: "off" });
      const r = await runSandboxed(backend, sh(script), policy, ws);
      expect(r.code).not.toBe(0);
      expect(fs.existsSync(helper)).toBe(true);
      expect(digest(helper)).toBe(original);
    });
  }
});
