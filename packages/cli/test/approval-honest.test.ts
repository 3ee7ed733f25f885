// What the terminal prompt of `shellgate exec` says and offers, end to end through the built bin on a
// real pseudo-terminal, and the on-failure messages with and without a terminal.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { amendmentEffect, choicesFor, elicitationMessage, renderHeader, renderMenu, type PromptRequest } from "../src/index.js";
import { drivePty, makeScratch, runBin, type Scratch, realSandboxSkip } from "./helpers.js";

let s: Scratch;
let rules: string;
let outside: string;
beforeAll(() => {
  s = makeScratch();
  rules = s.write("rules/prompt.rules", 'prefix_rule(pattern=["touch"], decision="prompt", justification="creating files needs a person")\n');
  // Outside every writable root of workspace-write (not the project, not a temp dir).
  outside = mkdtempSync("/var/tmp/sg-cli-approval-");
});
afterAll(() => {
  s.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

const skip = await realSandboxSkip();

/** Run `shellgate exec ARGS` on a real pseudo-terminal; press each key once its `waitFor` text appeared. */
const drive = (args: string[], steps: Array<{ waitFor: string; key: string }>) =>
  drivePty(["exec", ...args], steps, { cwd: s.project, env: s.env, cols: 200, rows: 50 });

const MENU = "Ctrl-C aborts";

describe("the terminal prompt says why it asks and what each choice does (shellgate exec, real PTY)", () => {
  it("a dangerous command: the heuristic is the reason, no 'always allow', no 'session'; deny runs nothing", async () => {
    const victim = path.join(s.project, "victim");
    mkdirSync(victim, { recursive: true });
    const { code, screen } = await drive(["--approval-policy", "untrusted", "--", "rm", "-rf", victim], [{ waitFor: MENU, key: "n" }]);
    expect(screen).toContain(`why      dangerous: \`rm -rf ${victim}\` is a forced recursive delete`);
    expect(screen).toContain('note     no "always allow": the heuristics rate the command dangerous');
    expect(screen).not.toContain("[a]");
    expect(screen).not.toContain("[s]");
    expect(code).toBe(126);
    expect(existsSync(victim)).toBe(true);
  });

  it("an unknown command under untrusted: the policy is the reason; 'always allow' keeps it sandboxed, and running without the sandbox is its own choice", async () => {
    const file = path.join(s.project, "policy.txt");
    const { code, screen } = await drive(
      ["--approval-policy", "untrusted", "--", "touch", file],
      [
        { waitFor: MENU, key: "a" },
        { waitFor: "Esc to go back", key: "\u001b[C" },
        { waitFor: "> 2. touch", key: "\r" },
        { waitFor: "[y/N]", key: "n" },
        { waitFor: MENU, key: "n" },
      ],
    );
    expect(screen).toContain("why      approval policy `untrusted`: only known-safe commands run without asking");
    // The program is proposed; the whole command is the wider prefix the person chose here.
    expect(screen).toContain(`[a] always allow \`touch …\`, sandboxed: adds an allow rule to ${s.userRulesFile};`);
    expect(screen).toContain("matching commands will run without asking from now on, still in the workspace-write sandbox");
    expect(screen).toContain(`[u] always allow \`touch …\` outside the sandbox: adds an allow rule to ${s.userRulesFile};`);
    expect(screen).toContain(`prefix_rule(pattern=["touch", ${JSON.stringify(file)}], decision="allow", sandbox="workspace-write")`);
    expect(screen).toContain(`From then on, commands starting with \`touch ${file}\` run without asking, still in the workspace-write sandbox.`);
    expect(code).toBe(126);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(s.userRulesFile)).toBe(false);
  });

  it("a prompt rule: the rule with file:line and its justification is the reason", async () => {
    const file = path.join(s.project, "rule.txt");
    const { code, screen } = await drive(["--rules", rules, "--", "touch", file], [{ waitFor: MENU, key: "y" }]);
    expect(screen).toContain(`why      rule ${rules}:1 asks for approval: creating files needs a person`);
    expect(code).toBe(0);
    expect(existsSync(file)).toBe(true);
  });
});

describe.skipIf(skip !== undefined)("on-failure: the retry outside the sandbox (real sandbox, built bin)", () => {
  it("without a terminal: the command's own exit code, and a line saying a retry needs a person", async () => {
    const target = path.join(outside, "no-tty");
    const r = await runBin(["exec", "--approval-policy", "on-failure", "--", "touch", target], { env: s.env, cwd: s.project });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "shellgate exec: it ran in the sandbox and failed (exit 1); a retry without the sandbox needs a person, and there is no terminal to ask on (stdin is not a TTY): " +
        `run it from a terminal, or allow it with a rule in ${s.userRulesFile}`,
    );
    expect(existsSync(target)).toBe(false);
  });

  it("with a terminal: the retry prompt says it failed in the sandbox; denying keeps exit 1 and says the retry was not run", async () => {
    const target = path.join(outside, "denied");
    const { code, screen } = await drive(["--approval-policy", "on-failure", "--", "touch", target], [{ waitFor: MENU, key: "n" }]);
    expect(screen).toContain("It failed in the sandbox. Run it again WITHOUT the sandbox?");
    expect(screen).toMatch(/why {6}it failed in the sandbox \(exit 1\): /);
    expect(screen).toContain("[y] run it again without the sandbox, once");
    expect(screen).not.toContain("[s]");
    expect(screen).toContain("shellgate exec: it ran in the sandbox and failed (exit 1); the retry without the sandbox was not run (you denied it)");
    expect(screen).not.toContain("did not run");
    expect(code).toBe(1);
    expect(existsSync(target)).toBe(false);
  });

  it("control: approving the retry runs it outside the sandbox", async () => {
    const target = path.join(outside, "approved");
    const { code, screen } = await drive(["--approval-policy", "on-failure", "--", "touch", target], [{ waitFor: MENU, key: "y" }]);
    expect(screen).toContain("→ run it again without the sandbox, once");
    expect(code).toBe(0);
    expect(existsSync(target)).toBe(true);
  });
});

describe("rendering only what the orchestrator offered", () => {
  const base: PromptRequest = {
    argv: ["git", "push", "origin"],
    cwd: "/w",
    why: { kind: "rule", text: "rule /r/team.rules:3 asks for approval: pushing\u001b[2K is shared" },
    offeredDecisions: ["approved", "approved_with_amendment", "denied", "abort"],
    proposedAmendment: ["git", "push"],
    amendmentRulesFile: "/home/me/.config/shellgate/rules/default.rules",
    amendmentBypassesSandbox: true,
  };

  it("the terminal: no [s] when not offered; the amendment in plain words; the reason escaped", () => {
    expect(choicesFor(base).map((c) => c.key)).toEqual(["y", "a", "n", "q"]);
    expect(amendmentEffect(base)).toBe(
      "always allow `git push …`: adds an allow rule to /home/me/.config/shellgate/rules/default.rules; matching commands will run without the sandbox from now on",
    );
    expect(renderHeader(base).join("\n")).toContain("why      rule /r/team.rules:3 asks for approval: pushing\\x1b[2K is shared");
    const menu = renderMenu(choicesFor(base), 0);
    expect(menu).toContain("    [a] always allow `git push …`: adds an allow rule to /home/me/.config/shellgate/rules/default.rules;");
    expect(menu).toContain("        matching commands will run without the sandbox from now on");
  });

  it("denied-read paths: the amendment says matching commands stay in the sandbox", () => {
    expect(amendmentEffect({ ...base, amendmentBypassesSandbox: false })).toMatch(/run without asking from now on \(still in the sandbox\)$/);
  });

  it("the MCP elicitation message: the reason escaped, and what always allow does", () => {
    const message = elicitationMessage(base);
    expect(message).toContain("Why you are asked: rule /r/team.rules:3 asks for approval: pushing\\x1b[2K is shared");
    expect(message).toContain(
      '"Always allow" `git push …`: adds an allow rule to /home/me/.config/shellgate/rules/default.rules; matching commands will run without the sandbox from now on.',
    );
    const withheld = elicitationMessage({ ...base, offeredDecisions: ["approved", "denied", "abort"], proposedAmendment: undefined, amendmentWithheld: "the heuristics rate the command dangerous" });
    expect(withheld).toContain('No "always allow": the heuristics rate the command dangerous.');
    expect(withheld).not.toContain('"Always allow" `');
  });
});
