// What only macOS can show: the profile run by the real /usr/bin/sandbox-exec. Skipped elsewhere
// with the reason; on macOS it runs the shared conformance kit and the escapes the evaluator cannot
// rule out on its own (hard links, whose Seatbelt operation it only assumes).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseSandboxPolicy } from "@shellgate/sandbox";
import { CONFORMANCE_CASES, runConformanceCase } from "@shellgate/sandbox/conformance";
import { afterAll, describe, expect, it } from "vitest";
import { createSeatbeltSandboxBackend, seatbeltAvailability } from "../src/index.js";
import { makeLayout, removeLayout } from "./support.js";

const availability = seatbeltAvailability(process.platform, fs.existsSync("/usr/bin/sandbox-exec"));
const skip = availability.available ? undefined : availability.reason;
const title = (t: string) => `${t}${skip ? ` (skipped: ${skip})` : ""}`;

describe.skipIf(skip !== undefined)(title("conformance kit through the real sandbox-exec"), () => {
  const backend = createSeatbeltSandboxBackend();
  for (const c of CONFORMANCE_CASES) {
    it(`${c.expect === "blocked" ? "blocks" : "allows"} ${c.title}`, async () => {
      const result = await runConformanceCase(backend, c);
      expect(result.status, result.reason).toBe("passed");
      expect(result.control?.verdict === "reached" || result.control?.hostEffect === true).toBe(true);
    });
  }
});

describe.skipIf(skip !== undefined)(title("escapes a path-based profile must also hold on macOS"), () => {
  const L = skip ? undefined : makeLayout();
  afterAll(() => L && removeLayout(L));
  const run = async (script: string, policy = parseSandboxPolicy({ mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true, deniedReadPaths: [L!.deniedFile] })) => {
    const exec = await createSeatbeltSandboxBackend().transform({ argv: [process.execPath, "-e", script], cwd: L!.workspace, env: { PATH: "/usr/bin:/bin" } }, policy, { sandboxPolicyCwd: L!.workspace });
    const [file, ...args] = exec.argv;
    return spawnSync(file as string, args, { cwd: exec.cwd, env: exec.env as NodeJS.ProcessEnv, encoding: "utf8" });
  };

  it("a hard link of .git/HEAD into the workspace is refused (else writing it would change .git)", async () => {
    const r = await run(`require("fs").linkSync(".git/HEAD", "head-link")`);
    expect(r.status, r.stderr).not.toBe(0);
    expect(fs.existsSync(path.join(L!.workspace, "head-link"))).toBe(false);
    // control: unsandboxed, the link is made
    fs.linkSync(path.join(L!.workspace, ".git", "HEAD"), path.join(L!.base, "control-link"));
  });

  it("a hard link of a denied file into the workspace is refused (else it could be read there)", async () => {
    const r = await run(`require("fs").linkSync(${JSON.stringify(L!.deniedFile)}, "denied-link")`);
    expect(r.status, r.stderr).not.toBe(0);
    expect(fs.existsSync(path.join(L!.workspace, "denied-link"))).toBe(false);
  });

  it("the command sees CODEX_SANDBOX=seatbelt and the network marker", async () => {
    const r = await run(`process.stdout.write(process.env.CODEX_SANDBOX + " " + process.env.CODEX_SANDBOX_NETWORK_DISABLED)`);
    expect(r.stdout).toBe("seatbelt 1");
  });
});

it.skipIf(skip === undefined)(`the runtime tests are skipped here: ${skip ?? ""}`, () => {
  expect(process.platform === "darwin" && fs.existsSync("/usr/bin/sandbox-exec")).toBe(false);
});
