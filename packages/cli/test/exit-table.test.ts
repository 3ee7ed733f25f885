import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT_TABLE, exitCodeHelpRows, exitCodesMarkdown, type ExitTableCommand } from "../src/exit-table.js";
import { makeScratch, POLICY_CHECK_BIN, REPO_ROOT, runBin } from "./helpers.js";

const s = makeScratch();
afterAll(() => s.cleanup());
const run = (...args: string[]) => runBin(args, { env: s.env, cwd: s.project });

/** How each command's help is asked for through the built bin. */
const HELP_ARGS: Record<ExitTableCommand, string[]> = {
  exec: ["exec", "--help"],
  sandbox: ["sandbox", "--help"],
  check: ["check", "--help"],
  mcp: ["mcp", "--help"],
  doctor: ["doctor", "--help"],
  policy: ["policy", "--help"],
  "policy-check": ["policy", "check", "--help"],
};

describe("one table of exit codes", () => {
  it.each(Object.keys(EXIT_TABLE).filter((c) => c !== "policy-check") as ExitTableCommand[])(
    "`shellgate %s --help` prints its rows of the table, and examples",
    async (command) => {
      const r = await run(...HELP_ARGS[command]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Exit codes:\n${exitCodeHelpRows(command).join("\n")}\n`);
      expect(r.stdout).toMatch(/\nExamples:\n {2}shellgate /);
    },
  );

  it("policy-check's help (its own text) names every code of its rows", async () => {
    const r = await runBin(["--help"], { env: s.env, cwd: s.project, bin: POLICY_CHECK_BIN });
    expect(r.code).toBe(0);
    for (const row of EXIT_TABLE["policy-check"]) expect(r.stdout).toMatch(new RegExp(`\\b${row.code}\\b`));
  });

  it("the CLI README's table is the generated one", () => {
    const readme = readFileSync(path.join(REPO_ROOT, "packages/cli/README.md"), "utf8");
    const between = /<!-- exit-codes:begin -->\n([\s\S]*?)\n<!-- exit-codes:end -->/.exec(readme);
    expect(between, "README lacks the exit-codes markers").not.toBeNull();
    expect(between![1], `replace the README table with:\n${exitCodesMarkdown()}`).toBe(exitCodesMarkdown());
  });

  it("every command that reads the configuration documents the same configuration-error code", () => {
    for (const command of ["exec", "check", "mcp", "doctor"] as const) {
      expect(EXIT_TABLE[command].some((r) => r.code === "125" && /configuration error/.test(r.meaning)), command).toBe(true);
    }
  });

  it("the top-level help points at each command's table", async () => {
    const r = await run("--help");
    expect(r.stdout).toContain("Exit codes: each command's --help lists its own.");
    expect(r.stdout).toContain("a configuration error exits 125 from every command");
  });
});
