// `shellgate check` on PowerShell and cmd.exe command lines, end to end through the built bin: the
// grammar is found from the bundle, scripts are split, and each segment is judged in the PowerShell
// dialect. No pwsh is needed: nothing runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeScratch, runBin, type Scratch } from "../../helpers.js";

let s: Scratch;
let rules: string;
beforeAll(() => {
  s = makeScratch();
  rules = s.write("rules/ps.rules", 'prefix_rule(pattern=["git", "status"], decision="allow")\nprefix_rule(pattern=["Remove-Item"], decision="forbidden")\n');
});
afterAll(() => s.cleanup());

async function checkJson(...argv: string[]): Promise<Record<string, unknown>> {
  const r = await runBin(["check", "--json", "--approval-policy", "untrusted", "--", ...argv], { env: s.env, cwd: s.project });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

const SPELLINGS = [["pwsh", "-NoProfile", "-Command"], ["powershell.exe", "-NoProfile", "-Command"]] as const;

describe("shellgate check judges PowerShell scripts segment by segment (built bin)", () => {
  for (const shell of SPELLINGS) {
    const name = shell[0];
    it(`${name}: a read-only pipeline runs without asking under untrusted`, async () => {
      const j = await checkJson(...shell, "Get-Content foo.rs | Select-Object -Skip 200");
      expect(j).toMatchObject({ requirement: "skip", bypassSandbox: false, split: "plain", dialect: "powershell", segments: [["Get-Content", "foo.rs"], ["Select-Object", "-Skip", "200"]] });
    });

    it(`${name}: Get-ChildItem -Path . runs without asking`, async () => {
      expect(await checkJson(...shell, "Get-ChildItem -Path .")).toMatchObject({ requirement: "skip", split: "plain" });
    });

    it(`${name}: a cmdlet with a side effect asks`, async () => {
      expect(await checkJson(...shell, "Get-Content a.txt | Set-Content b.txt")).toMatchObject({ requirement: "needs_approval", split: "plain" });
    });

    it(`${name}: recursive forced removal is dangerous: it asks and no "always allow" is offered`, async () => {
      const j = await checkJson(...shell, "Remove-Item -Recurse -Force C:\\");
      expect(j).toMatchObject({ requirement: "needs_approval", segments: [["Remove-Item", "-Recurse", "-Force", "C:\\"]] });
      expect(j).not.toHaveProperty("proposedAmendment");
      expect(j["amendmentWithheld"]).toEqual(expect.any(String));
    });

    it(`${name}: a script with a dynamic part is judged whole, and asks`, async () => {
      expect(await checkJson(...shell, "Get-Content $env:HOME/secret")).toMatchObject({ requirement: "needs_approval", split: "not-plain" });
    });

    it(`${name}: a rule for git status decides that segment inside the script`, async () => {
      const r = await runBin(["check", "--json", "--approval-policy", "untrusted", "--rules", rules, "--", ...shell, "git status; Get-Location"], { env: s.env, cwd: s.project });
      const j = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(j).toMatchObject({ requirement: "skip", segments: [["git", "status"], ["Get-Location"]] });
      expect(JSON.stringify(j["matchedRules"])).toContain('"git","status"');
    });
  }

  it("a rule forbidding Remove-Item catches every spelling PowerShell reads as it (alias, case, module)", async () => {
    for (const script of ["ri build", "remove-item build", "Get-Location; del build", "Microsoft.PowerShell.Management\\Remove-Item build"]) {
      const r = await runBin(["check", "--json", "--approval-policy", "untrusted", "--rules", rules, "--", "pwsh", "-Command", script], { env: s.env, cwd: s.project });
      expect(JSON.parse(r.stdout), script).toMatchObject({ requirement: "forbidden" });
    }
    // Control: the same word outside PowerShell is another program, which the rule does not name.
    const posix = await runBin(["check", "--json", "--approval-policy", "untrusted", "--rules", rules, "--", "bash", "-c", "del build"], { env: s.env, cwd: s.project });
    expect(JSON.parse(posix.stdout)).toMatchObject({ requirement: "needs_approval" });
  });

  it("a forced removal fed by a recursive listing through the pipeline is dangerous; the same removal of one named file is not", async () => {
    const j = await checkJson("pwsh", "-NoProfile", "-Command", "Get-ChildItem -Recurse | Remove-Item -Force");
    expect(j).toMatchObject({ requirement: "needs_approval", split: "plain", segments: [["Get-ChildItem", "-Recurse"], ["Remove-Item", "-Force"]] });
    expect(j).not.toHaveProperty("proposedAmendment");
    // Control: a named path, not recursive, may still be offered as a rule.
    expect(await checkJson("pwsh", "-NoProfile", "-Command", "Remove-Item -Force build.log")).toHaveProperty("proposedAmendment");
  });

  it("a forced recursive removal hidden behind a redirection is still dangerous", async () => {
    const j = await checkJson("pwsh", "-Command", "rm -r -fo C:\\src > $null");
    expect(j).toMatchObject({ requirement: "needs_approval", split: "not-plain" });
    expect(j).not.toHaveProperty("proposedAmendment");
  });

  it("cmd.exe /c scripts are judged as one command, and check says so", async () => {
    const j = await checkJson("cmd.exe", "/c", "dir");
    expect(j).toMatchObject({ requirement: "needs_approval", split: "not-plain", segments: [["cmd.exe", "/c", "dir"]] });
    const text = await runBin(["check", "--approval-policy", "untrusted", "--", "cmd.exe", "/c", "dir"], { env: s.env, cwd: s.project });
    expect(text.stdout).toContain("cmd.exe scripts are not parsed");
  });
});
