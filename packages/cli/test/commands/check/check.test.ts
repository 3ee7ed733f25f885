// `shellgate check` as a module: argument handling, the human explanation and the JSON object.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { run } from "../../../src/commands/check/index.js";
import { hostPath } from "../../helpers.js";

let root: string;
let project: string;
let rules: string;
const saved: Record<string, string | undefined> = {};

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "sg-check-"));
  project = path.join(root, "project");
  mkdirSync(project, { recursive: true });
  // Keep the real user's configuration and rules out of these tests.
  for (const [k, v] of Object.entries({ HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "xdg"), CODEX_HOME: path.join(root, "codex"), SHELLGATE_CONFIG_DIR: undefined, PATH: hostPath() })) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rules = path.join(root, "test.rules");
  writeFileSync(
    rules,
    [
      'prefix_rule(pattern=["cat"], decision="allow")',
      'prefix_rule(pattern=["git", "push"], decision="forbidden", justification="pushing is for humans")',
      'prefix_rule(pattern=["make"], decision="prompt")',
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

async function check(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await run(["--cwd", project, ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe("shellgate check --json", () => {
  it("skip in the sandbox for a heuristically allowed command, with the amendment for a later retry", async () => {
    const r = await check("--json", "--approval-policy", "on-request", "--sandbox", "read-only", "--", "echo", "safe");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      requirement: "skip",
      bypassSandbox: false,
      proposedAmendment: ["echo"],
      amendmentChoices: [["echo"], ["echo", "safe"]],
      segments: [["echo", "safe"]],
      matchedRules: [],
      split: "not-a-shell",
      unmatched: [{ segment: ["echo", "safe"], verdict: "known-safe" }],
    });
  });

  it("needs_approval with the rule's reason; matched rules carry file and line", async () => {
    const r = await check("--json", "--rules", rules, "--approval-policy", "untrusted", "--", "bash", "-lc", "cat a && make all");
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j).slice(0, 4)).toEqual(["requirement", "reason", "segments", "matchedRules"]);
    expect(j.requirement).toBe("needs_approval");
    expect(j.reason).toBe("`bash -lc 'cat a && make all'` requires approval by policy");
    expect(j.proposedAmendment).toBeUndefined();
    expect(j.segments).toEqual([["cat", "a"], ["make", "all"]]);
    expect(j.matchedRules.map((m: { matchedPrefix: string[]; decision: string; source: { file: string; line: number } }) => [m.matchedPrefix, m.decision, m.source.file, m.source.line])).toEqual([
      [["cat"], "allow", rules, 1],
      [["make"], "prompt", rules, 3],
    ]);
  });

  it("forbidden with the justification", async () => {
    const r = await check("--json", "--rules", rules, "--", "git", "push", "origin", "main");
    expect(JSON.parse(r.stdout)).toMatchObject({ requirement: "forbidden", reason: "`git push origin main` rejected: pushing is for humans" });
  });

  it("skip bypassing the sandbox when every segment has an allow rule", async () => {
    const r = await check("--json", "--rules", rules, "--", "bash", "-lc", "cat a | cat");
    expect(JSON.parse(r.stdout)).toMatchObject({ requirement: "skip", bypassSandbox: true });
  });

  it("a command the heuristics rate dangerous gets no \"always allow\" rule, as at the prompt, and says why; a plain one does", async () => {
    // Each of these is rated dangerous (a forced `rm`, directly, behind sudo, or as one segment of a
    // script): the prompt never offers "always allow" for it, so check must not predict one.
    for (const args of [["--", "rm", "-rf", "/tmp/x"], ["--", "sudo", "rm", "-rf", "/tmp/x"], ["cargo build && rm -rf /tmp/x"]]) {
      const j = JSON.parse((await check("--json", "--approval-policy", "untrusted", ...args)).stdout);
      expect(j.requirement, args.join(" ")).toBe("needs_approval");
      expect(j.proposedAmendment, args.join(" ")).toBeUndefined();
      expect(j.amendmentChoices, args.join(" ")).toBeUndefined();
      expect(j.amendmentWithheld, args.join(" ")).toBe("the heuristics rate the command dangerous");
      const human = (await check("--approval-policy", "untrusted", ...args)).stdout;
      expect(human, args.join(" ")).not.toContain("would add");
      expect(human, args.join(" ")).toContain('  "always allow" is not offered: the heuristics rate the command dangerous\n');
    }
    // The control: the same script with a harmless second command is offered its rule.
    const control = JSON.parse((await check("--json", "--approval-policy", "untrusted", "cargo build && echo ok")).stdout);
    expect(control.proposedAmendment).toEqual(["cargo", "build"]);
    expect(control.amendmentWithheld).toBeUndefined();
    expect((await check("--approval-policy", "untrusted", "cargo build && echo ok")).stdout).toContain(
      '"always allow" would add: prefix_rule(pattern=["cargo", "build"], decision="allow")\n',
    );
  });

  it("--escalate judges a request to leave the sandbox", async () => {
    const r = await check("--json", "--approval-policy", "on-request", "--escalate", "--", "ls");
    expect(JSON.parse(r.stdout)).toMatchObject({ requirement: "needs_approval", proposedAmendment: ["ls"] });
  });
});

describe("shellgate check (human output)", () => {
  it("explains segments, rules, heuristics and the requirement", async () => {
    const r = await check("--rules", rules, "--approval-policy", "untrusted", "--sandbox", "workspace-write", "--", "bash", "-lc", "cat README && cargo build");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("command:   bash -lc 'cat README && cargo build'");
    expect(lines[1]).toBe("policy:    approval untrusted, sandbox workspace-write");
    expect(r.stdout).toContain(`rules:     ${rules}`);
    expect(r.stdout).toContain("segments:  2 (a shell script of plain commands, judged one by one)");
    expect(r.stdout).toContain("  1. cat README\n");
    expect(r.stdout).toContain(`     rule ${rules}:1: prefix cat → allow\n`);
    expect(r.stdout).toContain("  2. cargo build\n     no rule; not known to be safe → asks first (approval policy untrusted)\n");
    expect(r.stdout).toContain("requirement: needs_approval — a person must approve it first\n");
    expect(r.stdout).toContain('"always allow" would add: prefix_rule(pattern=["cargo", "build"], decision="allow")\n');
  });

  it("names the prefix a person would write, not the commit message, and the others to choose from", async () => {
    const r = await check("--approval-policy", "untrusted", "--", "git", "commit", "-m", "fix: the parser");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"always allow" would add: prefix_rule(pattern=["git", "commit"], decision="allow")\n');
    expect(r.stdout).toContain("    prefixes the person may choose instead: `git commit -m …`, `git commit -m 'fix: the parser' …`\n");
    const j = JSON.parse((await check("--json", "--approval-policy", "untrusted", "--", "git", "commit", "-m", "fix: the parser")).stdout);
    expect(j.proposedAmendment).toEqual(["git", "commit"]);
    expect(j.amendmentChoices).toEqual([["git", "commit"], ["git", "commit", "-m"], ["git", "commit", "-m", "fix: the parser"]]);
  });

  it("says when a forbidden command will not run, and why", async () => {
    const r = await check("--rules", rules, "--", "git", "push");
    expect(r.stdout).toContain("requirement: forbidden — it will not run\n  reason: `git push` rejected: pushing is for humans\n");
  });

  it("a quoted script goes through the user's shell", async () => {
    const r = await check("--json", "cat a && wc -l b");
    const j = JSON.parse(r.stdout);
    expect(j.split).toBe("plain");
    expect(j.segments).toEqual([["cat", "a"], ["wc", "-l", "b"]]);
  });
});

describe("shellgate check errors", () => {
  it("usage errors exit 2 and point at --help", async () => {
    for (const args of [[], ["--", ], [""], ["--approval-policy", "sometimes", "--", "ls"], ["--bogus", "--", "ls"]]) {
      const r = await check(...args);
      expect(r.code, JSON.stringify(args)).toBe(2);
      expect(r.stderr).toMatch(/^shellgate check: /);
      expect(r.stderr).toContain("shellgate check --help");
      expect(r.stdout).toBe("");
    }
  });

  it("a broken rules file exits 125 (a configuration error) naming file and line", async () => {
    const bad = path.join(root, "bad.rules");
    writeFileSync(bad, 'prefix_rule(pattern=["ls"], decision="allow")\nprefix_rule(pattern=[], decision="allow")\n');
    const r = await check("--rules", bad, "--", "ls");
    expect(r.code).toBe(125);
    expect(r.stderr).toContain(`${bad}:2`);
  });

  it("--help prints usage", async () => {
    const r = await check("--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: shellgate check");
  });
});
