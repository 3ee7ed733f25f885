// The known-safe shortcut (no approval under `untrusted`) must not be steerable by
// what the workspace holds: file names a glob expands to, a program file named like a safe tool,
// a second operand that `uniq` writes. Each attack is first run directly (the control), so the test
// cannot pass because the action was impossible anyway.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeScratch, runBin, type Scratch } from "./helpers.js";

let s: Scratch;
let marker: string;

beforeAll(() => {
  s = makeScratch();
  marker = path.join(s.project, "X");
  // `sed -n 1p *` expands to `sed -n 1p -e1e touch X a`: GNU sed takes `-e1e touch X` as a script
  // whose `e` command runs `touch X`.
  writeFileSync(path.join(s.project, "-e1e touch X"), "");
  writeFileSync(path.join(s.project, "a"), "first line\n");
  writeFileSync(path.join(s.project, "cat"), "#!/bin/sh\ntouch X\n");
  chmodSync(path.join(s.project, "cat"), 0o755);
});
afterAll(() => s.cleanup());
beforeEach(() => rmSync(marker, { force: true }));

/** Judge and (try to) run under `untrusted` with no sandbox, no terminal: only known-safe commands run unasked. */
const untrusted = (...command: string[]) =>
  runBin(["exec", "--no-default-rules", "--approval-policy", "untrusted", "--sandbox", "danger-full-access", ...command], {
    env: s.env,
    cwd: s.project,
  });
const check = async (...command: string[]) => {
  const r = await runBin(["check", "--json", "--no-default-rules", "--approval-policy", "untrusted", ...command], { env: s.env, cwd: s.project });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { requirement: string; unmatched: Array<{ verdict: string }> };
};

describe("known-safe cannot be steered by the workspace", () => {
  it("control: the glob attack runs touch when the script runs directly", () => {
    // sed then fails on `1p` (now a file name), but the `e` command has already run.
    spawnSync("/bin/bash", ["-c", "sed -n 1p *"], { cwd: s.project, encoding: "utf8" });
    expect(existsSync(marker)).toBe(true);
  });

  it("a script with an unquoted glob is not known-safe: it needs a person and does not run", async () => {
    expect((await check("sed -n 1p *")).requirement).toBe("needs_approval");
    const r = await untrusted("sed -n 1p *");
    expect(r.code).toBe(126);
    expect(existsSync(marker)).toBe(false);
    // the same command with the operand quoted or named stays known-safe
    expect((await check("sed -n 1p a")).requirement).toBe("skip");
    expect((await check("sed -n 1p '*'")).requirement).toBe("skip");
  });

  it("control: ./cat is the workspace's program, and it runs", () => {
    const r = spawnSync("./cat", [], { cwd: s.project });
    expect(r.status).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it("./cat is not known-safe: it needs a person and does not run", async () => {
    expect((await check("--", "./cat", "a")).requirement).toBe("needs_approval");
    const r = await untrusted("--", "./cat", "a");
    expect(r.code).toBe(126);
    expect(existsSync(marker)).toBe(false);
    expect((await check("--", "/bin/cat", "a")).requirement).toBe("skip");
  });

  it("uniq IN OUT writes OUT, so it is not known-safe (control: it does write)", async () => {
    const control = spawnSync("uniq", ["a", "X"], { cwd: s.project });
    expect(control.status).toBe(0);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    expect((await check("--", "uniq", "a", "X")).requirement).toBe("needs_approval");
    const r = await untrusted("--", "uniq", "a", "X");
    expect(r.code).toBe(126);
    expect(existsSync(marker)).toBe(false);
    expect((await check("--", "uniq", "-c", "a")).requirement).toBe("skip");
  });
});
