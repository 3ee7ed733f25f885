// `--process-limit` and `process_limit` through the built bin: a command past the cap cannot fork,
// the same command under the default can (the control), and a bad value is refused before anything runs.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeScratch, realSandboxSkip, runBin } from "./helpers.js";

const skip = await realSandboxSkip();
const s = makeScratch();
afterAll(() => s.cleanup());
const run = (...args: string[]) => runBin(args, { env: s.env, cwd: s.project });

// Forty background processes at once: over a cap of 16, under the default 4096.
const FORTY = 'i=0; while [ $i -lt 40 ]; do sleep 1 & i=$((i+1)); done; wait; echo all-started';

describe.skipIf(skip !== undefined)(`the process limit from the CLI${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it("sandbox and exec: --process-limit 16 stops the forks (control: the default lets all forty start)", async () => {
    for (const command of ["sandbox", "exec"]) {
      const capped = await run(command, "--process-limit", "16", "--", "/bin/sh", "-c", FORTY);
      expect(capped.code, command).not.toBe(0);
      expect(`${capped.stdout}${capped.stderr}`, command).toMatch(/Cannot fork/);
      expect(capped.stdout, command).not.toContain("all-started");
      const free = await run(command, "--", "/bin/sh", "-c", FORTY);
      expect(free.code, `${command}: ${free.stderr}`).toBe(0);
      expect(free.stdout, command).toContain("all-started");
    }
  }, 60_000);

  it("exec: process_limit in the user config applies, and the flag wins over it", async () => {
    const userConfig = path.join(s.root, "xdg", "shellgate", "config.toml");
    mkdirSync(path.dirname(userConfig), { recursive: true });
    writeFileSync(userConfig, "process_limit = 16\n");
    try {
      const capped = await run("exec", "--", "/bin/sh", "-c", FORTY);
      expect(capped.stdout).not.toContain("all-started");
      const raised = await run("exec", "--process-limit", "off", "--", "/bin/sh", "-c", FORTY);
      expect(raised.code, raised.stderr).toBe(0);
      expect(raised.stdout).toContain("all-started");
    } finally {
      writeFileSync(userConfig, "");
    }
  }, 60_000);
});

describe("a bad --process-limit", () => {
  it("is refused naming the flag, before anything runs, with each command's usage exit code (exec, mcp, sandbox)", async () => {
    // As for any bad option: 125 from the commands that run one (exec, sandbox), 2 from mcp (the exit-code table).
    const cases: Array<[string[], number]> = [
      [["exec", "--process-limit", "3", "--", "true"], 125],
      [["mcp", "--process-limit", "lots"], 2],
      [["sandbox", "--process-limit", "0", "--", "true"], 125],
    ];
    for (const [args, code] of cases) {
      const r = await run(...args);
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr, args.join(" ")).toMatch(/--process-limit: expected a whole number from 8 to 4194304, or off, got "(3|lots|0)"/);
    }
  });
});
