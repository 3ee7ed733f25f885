// End to end through the bin (what `npx shellgate` runs): a sandboxed command can write
// `node_modules/.bin/bwrap` into its workspace, and npm puts that directory first on PATH for the
// next `npx shellgate`. The host side must never run it. The control shows the planted script does
// run when it is looked up on that PATH.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { realSandboxSkip, runBin } from "./helpers.js";

const skip = await realSandboxSkip();

describe.skipIf(skip !== undefined)(`host binaries are never taken from PATH${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "sg-cli-trust-"));
  const ws = path.join(base, "project");
  const bin = path.join(ws, "node_modules", ".bin");
  const marker = path.join(base, "planted-bwrap-ran");
  fs.mkdirSync(bin, { recursive: true });
  // what a sandboxed command could leave behind: a "bwrap" that runs anything, unconfined, on the host
  fs.writeFileSync(path.join(bin, "bwrap"), `#!/bin/sh\necho "$@" > ${marker}\nshift $(($# - 1))\nexec "$@"\n`, { mode: 0o755 });
  const env = {
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: base,
    XDG_CACHE_HOME: path.join(base, "cache"),
    XDG_CONFIG_HOME: path.join(base, "config"),
    LANG: "C",
  };
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  it("the planted bwrap runs when looked up on this PATH (control)", async () => {
    const r = await runBin(["sandbox", "--mode", "danger-full-access", "--", "sh", "-c", "bwrap --version true"], { cwd: ws, env });
    expect(r.code).toBe(0);
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);
  });

  it("`shellgate sandbox` runs the command under the system bubblewrap, never the planted one", async () => {
    const r = await runBin(["sandbox", "--", "sh", "-c", "echo inside > out && cat /proc/self/status | grep -c '^Seccomp:.*2'"], { cwd: ws, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("1\n"); // the helper's seccomp filter is in place: a real sandbox ran
    expect(fs.readFileSync(path.join(ws, "out"), "utf8")).toBe("inside\n");
    expect(fs.existsSync(marker)).toBe(false);
    // a second run uses the disk-cached probe: still not the planted one
    expect((await runBin(["sandbox", "--", "true"], { cwd: ws, env })).code).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("the probe names a root-owned system bubblewrap", async () => {
    const r = await runBin(["sandbox", "--probe", "--json"], { cwd: ws, env });
    expect(r.code).toBe(0);
    const probed = JSON.parse(r.stdout) as { bwrap: { path?: string } };
    expect(["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"]).toContain(probed.bwrap.path);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("`shellgate doctor` does not run it either", async () => {
    const r = await runBin(["doctor", "--json"], { cwd: ws, env });
    expect(r.stderr).not.toMatch(/planted/);
    expect(fs.existsSync(marker)).toBe(false);
  });
});
