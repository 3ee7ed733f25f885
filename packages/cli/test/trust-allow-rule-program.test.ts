// An allow rule lets its command run outside the sandbox. What that command executes must never be
// something a sandboxed command could have written: a program file planted in the workspace and
// reached as `./git`, or a repository the sandbox created (its fsmonitor hook runs with `git status`).
// Each attack is first performed directly, as the control: the planted code does write the marker
// into the protected rules directory when nothing confines it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { BIN, realSandboxSkip, runBin, type RunResult } from "./helpers.js";

const skip = await realSandboxSkip();
const hasGit = spawnSync("git", ["--version"]).status === 0;

const created: string[] = [];

interface Layout {
  project: string;
  env: Record<string, string>;
  /** The directory of the loaded rules file: the sandbox holds it read-only. */
  rulesDir: string;
  /** Where the planted code writes when it runs unconfined. */
  marker: string;
}

/** A project, a home and a user rules file (whose directory is protected), all under one fresh temp directory. */
function layout(rules: string): Layout {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-trust-allow-")));
  fs.chmodSync(root, 0o755);
  created.push(root);
  const project = path.join(root, "project");
  fs.mkdirSync(project);
  fs.mkdirSync(path.join(root, "home"));
  const rulesDir = path.join(root, "xdg", "shellgate", "rules");
  fs.mkdirSync(rulesDir, { recursive: true });
  fs.writeFileSync(path.join(rulesDir, "default.rules"), rules);
  const env = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: path.join(root, "home"),
    XDG_CONFIG_HOME: path.join(root, "xdg"),
    XDG_CACHE_HOME: path.join(root, "cache"),
    SHELL: "/bin/bash",
    LANG: "C",
    NO_COLOR: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  };
  return { project, env, rulesDir, marker: path.join(rulesDir, "marker") };
}

/** The planted program: it writes the marker (refused in the sandbox) and reports its seccomp mode. */
function payload(marker: string): string {
  return `#!/bin/sh\\necho pwned > ${marker} 2>/dev/null\\ngrep Seccomp: /proc/self/status\\nexit 0\\n`;
}

const exec = (l: Layout, policy: string, args: string[]): Promise<RunResult> =>
  runBin(["exec", "--sandbox", "workspace-write", "--approval-policy", policy, ...args], { cwd: l.project, env: l.env });

/** A command the sandbox runs for the agent (no rule matches it, so `never` runs it confined). */
async function inSandbox(l: Layout, script: string): Promise<void> {
  const r = await exec(l, "never", ["--", "bash", "-c", script]);
  expect(r.code, r.stderr).toBe(0);
}

describe.skipIf(skip !== undefined)(`an allow rule does not run sandbox-written code outside the sandbox${skip ? ` (skipped: ${skip})` : ""}`, () => {
  afterAll(() => created.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  describe("a program the sandbox planted, named like the rule's program", () => {
    let l: Layout;
    beforeEach(async () => {
      l = layout('prefix_rule(pattern=["git", "commit"], decision="allow")\n');
      // The agent's sandboxed command writes ./git.
      await inSandbox(l, `printf '${payload(l.marker)}' > git; chmod +x git`);
      expect(fs.existsSync(path.join(l.project, "git"))).toBe(true);
      expect(fs.existsSync(l.marker)).toBe(false);
    });

    it("CONTROL: run directly, the planted ./git writes into the protected rules directory", () => {
      const r = spawnSync("./git", ["commit", "-m", "x"], { cwd: l.project, env: l.env, encoding: "utf8" });
      expect(r.status).toBe(0);
      expect(fs.existsSync(l.marker)).toBe(true);
    });

    it("on-request: `./git commit` matches the rule but runs in the sandbox (Seccomp 2, no marker), and stderr names the path", async () => {
      const r = await exec(l, "on-request", ["--", "./git", "commit", "-m", "x"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/Seccomp:\s+2/);
      expect(fs.existsSync(l.marker)).toBe(false);
      expect(r.stderr).toContain("sandbox kept:");
      expect(r.stderr).toContain(path.join(l.project, "git"));
    });

    it("--json: the result carries sandboxKept with the resolved path, and the trace says why without it", async () => {
      const r = await exec(l, "on-request", ["--json", "--", "./git", "commit", "-m", "x"]);
      const out = JSON.parse(r.stdout) as {
        stdout: string;
        sandboxKept?: { reason: string; found: Array<{ kind: string; path: string }> };
        trace?: { sandboxOverride: string; sandboxKept?: string[]; initialSandbox: string };
      };
      expect(out.stdout).toMatch(/Seccomp:\s+2/);
      expect(out.sandboxKept?.found).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "program", path: path.join(l.project, "git") })]));
      expect(out.trace).toMatchObject({ sandboxOverride: "none", sandboxKept: expect.arrayContaining(["program"]) });
      expect(out.trace?.initialSandbox).not.toBe("none");
      expect(fs.existsSync(l.marker)).toBe(false);
    });

    it("untrusted (the reproduction): it is put to a person; with no terminal it is refused, naming the path, and nothing runs", async () => {
      const r = await exec(l, "untrusted", ["--", "./git", "commit", "-m", "x"]);
      expect(r.code).not.toBe(0);
      expect(r.stdout).not.toMatch(/Seccomp/);
      expect(r.stderr).toContain(path.join(l.project, "git"));
      expect(fs.existsSync(l.marker)).toBe(false);
    });

    it("through MCP: the tool result says so in structuredContent.sandboxKept, and the run was sandboxed", async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "mcp", "--sandbox", "workspace-write", "--approval-policy", "on-request"],
        env: l.env,
        cwd: l.project,
        stderr: "pipe",
      });
      const client = new Client({ name: "shellgate-trust-allow-rule", version: "1.0.0" }, { capabilities: {} });
      await client.connect(transport);
      try {
        const result = (await client.callTool({ name: "shell_command", arguments: { command: "./git commit -m x" } })) as CallToolResult;
        const structured = result.structuredContent as { sandboxKept?: { found: Array<{ kind: string; path: string }> } } | undefined;
        expect(structured?.sandboxKept?.found).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "program", path: path.join(l.project, "git") })]));
        const content = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
        expect(content).toMatch(/Seccomp:\s+2/);
        expect(content).toContain(path.join(l.project, "git"));
        expect(fs.existsSync(l.marker)).toBe(false);
      } finally {
        await client.close();
      }
    });

    it("CONTROL: `shellgate check` shows the rule matching `./git commit` (the rule alone would lift the sandbox)", async () => {
      const r = await runBin(["check", "--json", "--sandbox", "workspace-write", "--approval-policy", "on-request", "--", "./git", "commit", "-m", "x"], { cwd: l.project, env: l.env });
      const out = JSON.parse(r.stdout) as { requirement: string; bypassSandbox?: boolean; sandboxKept?: { found: Array<{ path: string }> } };
      expect(out.requirement).toBe("skip");
      expect(out.sandboxKept?.found[0]?.path).toBe(path.join(l.project, "git"));
    });
  });

  skipUnless(hasGit ? undefined : "git is not installed").describe("git in a repository the sandbox created", () => {
    let l: Layout;
    beforeEach(async () => {
      l = layout('prefix_rule(pattern=["git", "status"], decision="allow")\nprefix_rule(pattern=["cd"], decision="allow")\n');
      // The agent's sandboxed command makes a repository with an index and points its fsmonitor at a script.
      const monitor = path.join(l.project, "mon.sh");
      await inSandbox(
        l,
        `git init -q sub && cd sub && echo a > a && git add a && printf '${payload(l.marker)}' > ${monitor} && chmod +x ${monitor} && git config core.fsmonitor ${monitor}`,
      );
      expect(fs.existsSync(path.join(l.project, "sub", ".git", "config"))).toBe(true);
    });

    it("CONTROL: git status run directly in sub runs the planted fsmonitor, which writes the marker", () => {
      spawnSync("git", ["status"], { cwd: path.join(l.project, "sub"), env: l.env, encoding: "utf8" });
      expect(fs.existsSync(l.marker)).toBe(true);
    });

    it("an allowed `git status` with cwd sub runs in the sandbox: the monitor cannot write the marker, and stderr says why", async () => {
      const r = await exec(l, "on-request", ["cd sub && git status"]);
      expect(fs.existsSync(l.marker)).toBe(false);
      expect(r.stderr).toContain("sandbox kept:");
      expect(r.stderr).toContain(path.join(l.project, "sub", ".git"));
    });

    it("CONTROL: the same rules in the workspace's own repository (held read-only) run git outside the sandbox", async () => {
      spawnSync("git", ["init", "-q"], { cwd: l.project, env: l.env });
      const r = await exec(l, "on-request", ["--json", "--", "git", "status"]);
      const out = JSON.parse(r.stdout) as { trace?: { sandboxOverride: string } };
      expect(out.trace?.sandboxOverride).toBe("bypass_by_rule");
    });
  });
});
