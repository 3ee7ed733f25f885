import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, parseConfigText } from "../src/index.js";
import { makeScratch, runBin } from "./helpers.js";

/** Each diagnostic: the file's text, and the exact message after `FILE:`. */
const DIAGNOSTICS: Array<{ name: string; text: string; at: [number, number]; message: string }> = [
  { name: "TOML syntax", text: 'approval_policy = "on-request"\nsandbox_mode = = 1\n', at: [2, 16], message: "TOML syntax error: invalid value" },
  {
    name: "unknown top-level key, near a known one",
    text: '# team defaults\naproval_policy = "never"\n',
    at: [2, 1],
    message: "unknown key `aproval_policy`; did you mean `approval_policy`?",
  },
  {
    name: "unknown key in a table, a prefix of a known one",
    text: 'sandbox_mode = "read-only"\n\n[sandbox_workspace_write]\nnetwork = true\n',
    at: [4, 1],
    message: "unknown key `network` in [sandbox_workspace_write]; did you mean `network_access`?",
  },
  {
    name: "unknown key in an inline table",
    text: 'sandbox_workspace_write = { writable_roots = ["/data"], netwrk_access = true }\n',
    at: [1, 57],
    message: "unknown key `netwrk_access` in [sandbox_workspace_write]; did you mean `network_access`?",
  },
  {
    name: "unknown key in a project trust table",
    text: '[projects."/home/me/app"]\ntrust_levl = "trusted"\n',
    at: [2, 1],
    message: 'unknown key `trust_levl` in [projects."/home/me/app"]; did you mean `trust_level`? (and 1 more problem)',
  },
  { name: "unknown key, nothing close", text: 'colour = "red"\n', at: [1, 1], message: "unknown key `colour`" },
  {
    name: "bad value",
    text: 'approval_policy = "sometimes"\n',
    at: [1, 19],
    message: '`approval_policy`: Invalid option: expected one of "untrusted"|"on-failure"|"on-request"|"never"',
  },
  {
    name: "bad value in a table",
    text: '[shell_environment_policy]\ninherit = "everything"\n',
    at: [2, 11],
    message: '`shell_environment_policy.inherit`: Invalid option: expected one of "all"|"core"|"none"',
  },
  {
    name: "bad array element",
    text: 'rules = [\n  "team.rules",\n  42,\n]\n',
    at: [3, 3],
    message: "`rules[1]`: Invalid input: expected string, received number",
  },
  {
    name: "a process limit out of range",
    text: 'sandbox_mode = "workspace-write"\nprocess_limit = 4\n',
    at: [2, 17],
    message: '`process_limit`: expected a whole number from 8 to 4194304, or "off"',
  },
  {
    name: "a process limit that is neither a number nor off",
    text: 'process_limit = "none"\n',
    at: [1, 17],
    message: '`process_limit`: expected a whole number from 8 to 4194304, or "off"',
  },
  {
    name: "a timeout that is no duration",
    text: 'sandbox_mode = "read-only"\ntimeout = "10 minutes"\n',
    at: [2, 11],
    message: '`timeout`: expected a duration such as 500ms, 30s, 2m, 1m30s or 1h, or a whole number of milliseconds, got "10 minutes"',
  },
  {
    name: "a timeout over what a timer holds",
    text: "timeout_ms = 3000000000\n",
    at: [1, 14],
    message: "`timeout_ms`: the longest duration is 2147483647 ms (about 24 days); use 0 for none where that is allowed, got 3000000000",
  },
  {
    name: "a timeout that is neither a number nor a string",
    text: "timeout = true\n",
    at: [1, 11],
    message: "`timeout`: expected a duration such as 500ms, 30s, 2m, 1m30s or 1h, or a whole number of milliseconds",
  },
  {
    name: "both names of the timeout",
    text: 'timeout = "5m"\ntimeout_ms = 1000\n',
    at: [2, 14],
    message: "`timeout_ms`: give either `timeout` or `timeout_ms`, not both",
  },
  {
    name: "bad element of a dotted key's array",
    text: 'sandbox_workspace_write.writable_roots = [""]\n',
    at: [1, 43],
    message: "`sandbox_workspace_write.writable_roots[0]`: Too small: expected string to have >=1 characters",
  },
];

describe("configuration diagnostics (parseConfigText)", () => {
  it.each(DIAGNOSTICS)("$name: file:line:col and message", ({ text, at, message }) => {
    let error: unknown;
    try {
      parseConfigText("/p/config.toml", text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ code: "CLI_CONFIG", file: "/p/config.toml", line: at[0], column: at[1] });
    expect((error as Error).message).toBe(`/p/config.toml:${at[0]}:${at[1]}: ${message}`);
  });

  it("accepts a valid file with every table", () => {
    expect(() =>
      parseConfigText(
        "c.toml",
        'approval_policy = "never"\nallow_weaker_isolation = true\n[sandbox_workspace_write]\nnetwork_access = false\n[shell_environment_policy]\nset = { CI = "1" }\n',
      ),
    ).not.toThrow();
  });
});

describe("a configuration error exits the same way from every command (built bin)", () => {
  const s = makeScratch();
  afterAll(() => s.cleanup());
  const userConfig = path.join(s.root, "xdg", "shellgate", "config.toml");
  const COMMANDS: Array<{ name: string; args: string[] }> = [
    { name: "exec", args: ["exec", "--", "true"] },
    { name: "check", args: ["check", "--", "true"] },
    { name: "mcp", args: ["mcp", "--cwd", s.project] },
    { name: "doctor", args: ["doctor"] },
  ];

  it.each(DIAGNOSTICS.slice(0, 3))("$name in the user config: 125 and the same located line from exec, check, mcp, doctor", async ({ text, at, message }) => {
    mkdirSync(path.dirname(userConfig), { recursive: true });
    writeFileSync(userConfig, text);
    for (const c of COMMANDS) {
      const r = await runBin(c.args, { env: s.env, cwd: s.project });
      expect(r.code, c.name).toBe(125);
      expect(r.stderr, c.name).toBe(`shellgate ${c.name}: ${userConfig}:${at[0]}:${at[1]}: ${message}\n`);
      expect(r.stdout, c.name).toBe("");
    }
  });

  it("a project file that names `projects` is refused at the key's line:col, 125 everywhere", async () => {
    writeFileSync(userConfig, "");
    const projectConfig = path.join(s.project, ".shellgate", "config.toml");
    mkdirSync(path.dirname(projectConfig), { recursive: true });
    writeFileSync(projectConfig, `approval_policy = "never"\n\n[projects."${s.project}"]\ntrust_level = "trusted"\n`);
    try {
      for (const c of COMMANDS) {
        const r = await runBin(c.args, { env: s.env, cwd: s.project });
        expect(r.code, c.name).toBe(125);
        expect(r.stderr, c.name).toMatch(new RegExp(`^shellgate ${c.name}: ${projectConfig.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3:2: \`projects\`: project trust is read only from your user config`));
      }
    } finally {
      writeFileSync(projectConfig, "");
    }
  });

  it("an untrusted project that loosens the policy is the same 125 everywhere", async () => {
    writeFileSync(userConfig, "");
    const projectConfig = path.join(s.project, ".shellgate", "config.toml");
    mkdirSync(path.dirname(projectConfig), { recursive: true });
    writeFileSync(projectConfig, 'approval_policy = "on-request"\n\n[sandbox_workspace_write]\nnetwork_access = true\n');
    try {
      for (const c of COMMANDS) {
        const r = await runBin(c.args, { env: s.env, cwd: s.project });
        expect(r.code, c.name).toBe(125);
        expect(r.stderr, c.name).toContain(`shellgate ${c.name}: ${projectConfig}: this project is not trusted`);
        // each refused key is located in the file
        expect(r.stderr, c.name).toContain(`\n  - ${projectConfig}:4:1: sandbox_workspace_write.network_access = true (your configuration gives network off)\n`);
      }
    } finally {
      writeFileSync(projectConfig, "");
    }
  });

  it("a rules file that does not load is 125 from exec, check and mcp", async () => {
    writeFileSync(userConfig, "");
    const bad = s.write("bad.rules", 'prefix_rule(pattern=["ls"], decision="maybe")\n');
    for (const c of COMMANDS.filter((x) => x.name !== "doctor")) {
      const r = await runBin([...c.args.slice(0, 1), "--rules", bad, ...c.args.slice(1)], { env: s.env, cwd: s.project });
      expect(r.code, c.name).toBe(125);
      expect(r.stderr, c.name).toContain(`${bad}:1:`);
    }
  });
});
