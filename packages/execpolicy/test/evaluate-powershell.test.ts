// Rules over PowerShell commands: PowerShell reads a command name without regard to case, aliases,
// module qualifiers and program extensions, so a rule that forbids or asks catches every spelling;
// an allow rule allows only the spelling it names.
import { describe, expect, it } from "vitest";
import { InvalidArgumentError, parsePolicy } from "../src/index.js";

const policy = parsePolicy([
  {
    path: "ps.rules",
    source: [
      'prefix_rule(pattern=["Remove-Item"], decision="forbidden", justification="no deleting")',
      'prefix_rule(pattern=["Get-Content"], decision="allow")',
      'prefix_rule(pattern=["git", "push"], decision="prompt")',
      'prefix_rule(pattern=["Invoke-WebRequest"], decision="forbidden")',
      "",
    ].join("\n"),
  },
]);
const ps = { dialect: "powershell" } as const;

describe("Policy#evaluate with dialect powershell", () => {
  it.each([
    ["ri", "-r", "build"],
    ["rm", "build"],
    ["del", "build"],
    ["remove-item", "build"],
    ["REMOVE-ITEM", "build"],
    ["Microsoft.PowerShell.Management\\Remove-Item", "build"],
    ["iwr", "https://registry.example.org/x"],
    ["invoke-webrequest", "https://registry.example.org/x"],
  ])("a forbidding rule catches %s", (...argv) => {
    const e = policy.evaluate(argv, ps);
    expect(e.decision).toBe("forbidden");
    expect(e.matchedRules[0]?.matchedPrefix).toEqual([expect.stringMatching(/^(Remove-Item|Invoke-WebRequest)$/)]);
    // Control: the same words as a POSIX command match nothing.
    expect(policy.evaluate(argv).decision).toBeUndefined();
  });

  it("a rule that asks catches another spelling of the program", () => {
    expect(policy.evaluate(["git.exe", "push"], ps).decision).toBe("prompt");
    expect(policy.evaluate(["GIT", "push", "origin"], ps).decision).toBe("prompt");
    expect(policy.evaluate(["git.exe", "push"]).decision).toBeUndefined();
  });

  it("an allow rule allows only the spelling it names", () => {
    expect(policy.evaluate(["Get-Content", "a.txt"], ps).decision).toBe("allow");
    expect(policy.evaluate(["gc", "a.txt"], ps)).toEqual({ matchedRules: [] });
    expect(policy.evaluate(["get-content", "a.txt"], ps)).toEqual({ matchedRules: [] });
  });

  it("the spelling as written still decides alongside the others (strictest wins)", () => {
    const both = parsePolicy([{ path: "b.rules", source: 'prefix_rule(pattern=["rm"], decision="allow")\nprefix_rule(pattern=["Remove-Item"], decision="prompt")\n' }]);
    const e = both.evaluate(["rm", "x"], ps);
    expect(e.decision).toBe("prompt");
    expect(e.matchedRules.map((m) => [m.matchedPrefix[0], m.decision])).toEqual([["rm", "allow"], ["Remove-Item", "prompt"]]);
    expect(both.evaluate(["rm", "x"]).decision).toBe("allow");
  });

  it("an unknown dialect is an InvalidArgumentError naming the option", () => {
    expect(() => policy.evaluate(["ri", "x"], { dialect: "cmd" as "posix" })).toThrow(InvalidArgumentError);
    expect(() => policy.evaluate(["ri", "x"], { dialect: "cmd" as "posix" })).toThrow(/options\.dialect/);
  });
});
