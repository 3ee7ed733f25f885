// Special files where shellgate reads: a FIFO planted as a project config or a rules file (a kernel
// without Landlock lets a sandboxed command make one in the workspace) must not hang the next
// `shellgate` run. Each is refused unread with a configuration error naming the path. The control:
// a plain blocking read of the same FIFO does not finish within a second (bounded by a timeout).
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeScratch, runBin, type Scratch } from "./helpers.js";

const posix = process.platform !== "win32";
let s: Scratch;

beforeEach(() => {
  s = makeScratch();
  // Readable by whoever runs the tests (they run again as nobody).
  chmodSync(s.root, 0o755);
});
afterEach(() => s.cleanup());

function mkfifo(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const r = spawnSync("mkfifo", [file]);
  if (r.status !== 0) throw new Error(`mkfifo ${file}: ${String(r.stderr)}`);
}

/** The control: a plain read of `file` is still blocked after a second, so the guard is what ends the run. */
function plainReadBlocks(file: string): boolean {
  const r = spawnSync(process.execPath, ["-e", `require("node:fs").readFileSync(${JSON.stringify(file)})`], { timeout: 1000 });
  return r.signal === "SIGTERM";
}

describe.skipIf(!posix)(`FIFOs planted where shellgate reads${posix ? "" : " (skipped: no FIFOs on Windows)"}`, () => {
  it("a FIFO at <ws>/sub/.shellgate/config.toml: shellgate exec from sub ends with a config error naming it", async () => {
    const sub = path.join(s.project, "sub");
    const config = path.join(sub, ".shellgate", "config.toml");
    mkfifo(config);
    expect(plainReadBlocks(config)).toBe(true);
    const r = await runBin(["exec", "--json", "--", "true"], { env: s.env, cwd: sub });
    expect(r.code).toBe(125);
    expect(r.stdout + r.stderr).toContain(`${config}: found a FIFO where a regular file was expected; refusing to read it`);
  });

  it("a FIFO where a trusted project's config names a rules file: shellgate exec ends with an error naming it", async () => {
    const sub = path.join(s.project, "sub");
    mkdirSync(path.join(sub, ".shellgate"), { recursive: true });
    writeFileSync(path.join(sub, ".shellgate", "config.toml"), 'rules = ["policy/team.rules"]\n');
    // Only a trusted project may name rules files (their allow rules run commands unsandboxed).
    s.write(path.join("xdg", "shellgate", "config.toml"), `[projects.${JSON.stringify(realpathSync(sub))}]\ntrust_level = "trusted"\n`);
    const rules = path.join(sub, "policy", "team.rules");
    mkfifo(rules);
    expect(plainReadBlocks(rules)).toBe(true);
    const r = await runBin(["exec", "--json", "--", "true"], { env: s.env, cwd: sub });
    expect(r.code).toBe(125);
    expect(r.stdout + r.stderr).toContain(`${rules}: it is a FIFO, not a regular file; refusing to read it`);
  });

  it("a FIFO named *.rules in the user's rules directory is refused by name, not skipped", async () => {
    const rules = path.join(path.dirname(s.userRulesFile), "planted.rules");
    mkfifo(rules);
    expect(plainReadBlocks(rules)).toBe(true);
    const r = await runBin(["exec", "--json", "--", "true"], { env: s.env, cwd: s.project });
    expect(r.code).toBe(125);
    expect(r.stdout + r.stderr).toContain(`${rules}: it is a FIFO, not a regular file`);
  });
});
