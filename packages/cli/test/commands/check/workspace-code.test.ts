// Allow rules for commands that run code the workspace defines: `shellgate check` and
// `policy-check --explain` warn and show the rule that keeps the command confined; policy-check's
// JSON (Codex's shape) and its decisions are unchanged.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { run } from "../../../src/commands/check/index.js";
import { POLICY_CHECK_BIN } from "../../helpers.js";

let root: string;
let project: string;
let rules: string;
const saved: Record<string, string | undefined> = {};

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "sg-check-wscode-"));
  project = path.join(root, "project");
  mkdirSync(path.join(project, ".git"), { recursive: true });
  for (const [k, v] of Object.entries({ HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "xdg"), CODEX_HOME: path.join(root, "codex"), SHELLGATE_CONFIG_DIR: undefined })) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rules = path.join(root, "test.rules");
  writeFileSync(
    rules,
    [
      'prefix_rule(pattern=["npm", "test"], decision="allow")',
      'prefix_rule(pattern=["make"], decision="allow", sandbox="workspace-write")',
      'prefix_rule(pattern=["ls"], decision="allow")',
      "",
    ].join("\n"),
  );
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(root, { recursive: true, force: true });
});

async function check(...args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    return { code: await run(["--cwd", project, "--no-default-rules", "--rules", rules, "--sandbox", "workspace-write", ...args]), stdout };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe("shellgate check: allow rules for workspace-defined code", () => {
  it("--json: `npm test` under a plain allow rule gets a workspaceCode warning with the sandbox= rule", async () => {
    const r = await check("--json", "--", "npm", "test");
    const j = JSON.parse(r.stdout);
    expect(j.workspaceCode).toEqual([
      {
        segment: ["npm", "test"],
        rule: { file: rules, line: 1, column: 1, prefix: ["npm", "test"] },
        runs: expect.stringContaining("package scripts"),
        sandboxedRule: 'prefix_rule(pattern=["npm", "test"], decision="allow", sandbox="workspace-write")',
      },
    ]);
  });

  it("the human explanation says so and shows the rule to write", async () => {
    const r = await check("--", "npm", "test");
    expect(r.stdout).toContain(`warning: rule ${rules}:1 lets \`npm test\` run outside the sandbox`);
    expect(r.stdout).toContain('prefix_rule(pattern=["npm", "test"], decision="allow", sandbox="workspace-write")');
  });

  it("CONTROL: no warning for a rule that already carries a sandbox, nor for a command that runs no workspace code", async () => {
    expect(JSON.parse((await check("--json", "--", "make", "all")).stdout).workspaceCode).toBeUndefined();
    expect(JSON.parse((await check("--json", "--", "ls")).stdout).workspaceCode).toBeUndefined();
  });

  it("the shown amendment is judged by what it lets through: `python3 -q` is not proposed", async () => {
    const j = JSON.parse((await check("--json", "--approval-policy", "untrusted", "--", "python3", "-q")).stdout);
    expect(j.requirement).toBe("needs_approval");
    expect(j.proposedAmendment).toBeUndefined();
    const control = JSON.parse((await check("--json", "--approval-policy", "untrusted", "--", "cargo", "build")).stdout);
    expect(control.proposedAmendment).toEqual(["cargo", "build"]);
  });
});

describe("policy-check --explain: the same warning; the JSON stays Codex's", () => {
  const policyCheck = (...args: string[]) => spawnSync(process.execPath, [POLICY_CHECK_BIN, "--rules", rules, ...args], { encoding: "utf8", env: { ...process.env, SHELLGATE_POLICY_CACHE: "off" } });

  it("--explain warns for `npm test` and shows the sandbox= rule; the decision is still allow", () => {
    const r = policyCheck("--explain", "npm", "test");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("decision: allow");
    expect(r.stdout).toContain("warning: this allow lets `npm test` run outside shellgate's sandbox");
    expect(r.stdout).toContain('prefix_rule(pattern=["npm", "test"], decision="allow", sandbox="workspace-write")');
    expect(policyCheck("--explain", "ls").stdout).not.toContain("warning:");
  });

  it("the default JSON output has no new field", () => {
    const r = policyCheck("npm", "test");
    expect(Object.keys(JSON.parse(r.stdout)).sort()).toEqual(["decision", "matchedRules"]);
  });
});
