import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { diag, policy } from "./helpers.js";

describe("prefix_rule", () => {
  it("registers one rule per first-position alternative, sharing the tail", () => {
    const p = policy('prefix_rule(pattern=[["git", "hg"], ["log", "status"], "-v"], decision="prompt", justification="vcs")');
    expect(p.rules.map((r) => [r.program, r.rest, r.decision, r.justification, r.source])).toEqual([
      ["git", [["log", "status"], ["-v"]], "prompt", "vcs", { file: "t.rules", line: 1, column: 1 }],
      ["hg", [["log", "status"], ["-v"]], "prompt", "vcs", { file: "t.rules", line: 1, column: 1 }],
    ]);
  });

  it("defaults decision to allow and accepts positional arguments in declaration order", () => {
    const p = policy('prefix_rule(["a"])\nprefix_rule(["b"], "forbidden", ["b x"], ["c"], "no")');
    expect(p.rules.map((r) => [r.program, r.decision, r.justification])).toEqual([["a", "allow", undefined], ["b", "forbidden", "no"]]);
  });

  it.each([
    ['prefix_rule(pattern=["a"], decision="maybe")', "INVALID_DECISION", "invalid decision: maybe"],
    ['prefix_rule(pattern=["a"], decision="deny")', "INVALID_DECISION", "invalid decision: deny"],
    ['prefix_rule(pattern=["a"], decision="Allow")', "INVALID_DECISION", "invalid decision: Allow"],
    ['prefix_rule(pattern=["a"], justification="  ")', "INVALID_RULE", "invalid rule: justification cannot be empty"],
    ["prefix_rule(pattern=[])", "INVALID_PATTERN", "invalid pattern element: pattern cannot be empty"],
    ['prefix_rule(pattern=["a", []])', "INVALID_PATTERN", "invalid pattern element: pattern alternatives cannot be empty"],
    ['prefix_rule(pattern=["a", 1])', "INVALID_PATTERN", "pattern element must be a string or list of strings (got int)"],
    ['prefix_rule(pattern=["a", ["b", None]])', "INVALID_PATTERN", "pattern alternative must be a string (got NoneType)"],
    ['prefix_rule(pattern="git")', "TYPE_ERROR", "expected `list`, got `string`"],
    ['prefix_rule(pattern=("git",))', "TYPE_ERROR", "expected `list`, got `tuple`"],
    ['prefix_rule(pattern=["a"], justification=None)', "TYPE_ERROR", "parameter `justification`"],
    ['prefix_rule(pattern=["a"], match=[[]])', "INVALID_EXAMPLE", "invalid example: example cannot be an empty list"],
    ['prefix_rule(pattern=["a"], match=["  "])', "INVALID_EXAMPLE", "invalid example: example cannot be an empty string"],
    ['prefix_rule(pattern=["a"], match=["a \'b"])', "INVALID_EXAMPLE", "invalid example: example string has invalid shell syntax"],
    ['prefix_rule(pattern=["a"], match=[1])', "INVALID_EXAMPLE", "example must be a string or list of strings (got int)"],
    ['prefix_rule(pattern=["a"], match=[("a",)])', "INVALID_EXAMPLE", "example must be a string or list of strings (got tuple)"],
    ['prefix_rule(pattern=["a"], match=[["a", 1]])', "INVALID_EXAMPLE", "example tokens must be strings (got int)"],
    ['prefix_rule(decision="allow")', "ARGUMENT_ERROR", "missing required argument `pattern`"],
    ['prefix_rule(pattern=["a"], decision="maybe", justification="")', "INVALID_DECISION", "invalid decision"],
  ])("%s → %s", (source, code, text) => {
    const e = diag(source);
    expect(e.code).toBe(code);
    expect(e.message).toContain(text);
    expect([e.line, e.column]).toEqual([1, 1]);
  });

  it("checks examples at the end of the file, not_match before match, against the call's own rules only", () => {
    expect(diag('prefix_rule(pattern=["git"], match=["hg x"], not_match=["git status"])').code).toBe("EXAMPLE_UNEXPECTEDLY_MATCHED");
    const m = diag('x = 1\nprefix_rule(pattern=["tmux capture-pane"], match=["tmux capture-pane -p"])');
    expect([m.code, m.line, m.column]).toEqual(["EXAMPLE_NOT_MATCHED", 2, 1]);
    expect(m.message).toContain("unmatched examples: [tmux capture-pane -p]");
    // Another rule matching a not_match example is fine; list examples are not shell-split.
    expect(policy('prefix_rule(pattern=["git"])\nprefix_rule(pattern=["git", "push"], not_match=["git status"], match=[["git", "push", "a b"]])').rules).toHaveLength(2);
    // Absolute paths pass through the basename fallback, gated by host_executable entries defined anywhere in the file.
    expect(policy('prefix_rule(pattern=["git"], match=[["/usr/bin/git", "x"]])').rules).toHaveLength(1);
    expect(diag('prefix_rule(pattern=["git"], match=[["/usr/bin/git"]])\nhost_executable(name="git", paths=["/bin/git"])').code).toBe("EXAMPLE_NOT_MATCHED");
  });
});

describe("host_executable", () => {
  it("normalises paths, expands ~/, drops duplicates, and the last definition wins", () => {
    const p = policy('host_executable(name="git", paths=["/a/git"])\nhost_executable(name="git", paths=["/usr/./bin/git", "/usr/lib/../bin/git", "~/bin/git"])\nhost_executable(name="rg", paths=[])');
    expect([...p.hostExecutables]).toEqual([["git", ["/usr/bin/git", `${homedir()}/bin/git`]], ["rg", []]]);
  });

  it.each([
    ['host_executable(name="", paths=[])', "host_executable name cannot be empty"],
    ['host_executable(name="/usr/bin/git", paths=[])', "must be a bare executable name (got /usr/bin/git)"],
    ['host_executable(name="..", paths=[])', "must be a bare executable name (got ..)"],
    ['host_executable(name="git", paths=["bin/git"])', "must be absolute or use `~/...` home-relative syntax (got bin/git)"],
    ['host_executable(name="git", paths=["~root/git"])', "(got ~root/git)"],
    ['host_executable(name="git", paths=["~"])', "must have basename `git`"],
    ['host_executable(name="git", paths=["/usr/bin/hg"])', "host_executable path `/usr/bin/hg` must have basename `git`"],
    ['host_executable(name="git", paths=[1])', "host_executable paths must be strings (got int)"],
  ])("%s", (source, text) => {
    const e = diag(source);
    expect(e.code).toBe("INVALID_HOST_EXECUTABLE");
    expect(e.message).toContain(text);
  });
});

describe("network_rule", () => {
  it("normalises hosts and protocols; last allow/forbidden per host wins; prompt is ignored", () => {
    const p = policy([
      'network_rule(host=" Example.COM. ", protocol="https", decision="allow")',
      'network_rule(host="[::1]:8080", protocol="http-connect", decision="deny", justification="local")',
      'network_rule(host="a.b:443", protocol="socks5_udp", decision="prompt")',
      'network_rule(host="example.com", protocol="http", decision="forbidden")',
      'network_rule(host="::1", protocol="https_connect", decision="allow")',
    ].join("\n"));
    expect(p.networkRules.map((r) => [r.host, r.protocol, r.decision])).toEqual([
      ["example.com", "https", "allow"], ["::1", "https", "forbidden"], ["a.b", "socks5_udp", "prompt"], ["example.com", "http", "forbidden"], ["::1", "https", "allow"],
    ]);
    expect(p.networkDomains()).toEqual({ allowed: ["::1"], denied: ["example.com"] });
    expect(p.rules).toHaveLength(0);
  });

  it.each([
    ['network_rule(host="a.com", protocol="ftp", decision="allow")', "INVALID_NETWORK_RULE", "protocol must be one of http, https, socks5_tcp, socks5_udp (got ftp)"],
    ['network_rule(host="a.com", protocol="http", decision="ask")', "INVALID_DECISION", "invalid decision: ask"],
    ['network_rule(host="*.a.com", protocol="http", decision="allow")', "INVALID_NETWORK_RULE", "wildcards are not allowed"],
    ['network_rule(host="https://a.com", protocol="http", decision="allow")', "INVALID_NETWORK_RULE", "without scheme or path"],
    ['network_rule(host="  ", protocol="http", decision="allow")', "INVALID_NETWORK_RULE", "host cannot be empty"],
    ['network_rule(host="a b", protocol="http", decision="allow")', "INVALID_NETWORK_RULE", "cannot contain whitespace"],
    ['network_rule(host="[::1]x", protocol="http", decision="allow")', "INVALID_NETWORK_RULE", "unsupported suffix"],
    ['network_rule(host="a.com", protocol="http", decision="allow", justification="")', "INVALID_RULE", "justification cannot be empty"],
  ])("%s", (source, code, text) => {
    const e = diag(source);
    expect(e.code).toBe(code);
    expect(e.message).toContain(text);
  });
});
