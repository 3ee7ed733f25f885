import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema, type CallToolResult, type LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, eventually, makeScratch, runBin } from "./helpers.js";

// Inside `shellgate sandbox`, seccomp refuses new namespaces, so bubblewrap cannot run there while
// Landlock still can: a real machine on which only the weaker fallback is available.
const s = makeScratch();
const userConfig = path.join(s.root, "xdg", "shellgate", "config.toml");
afterAll(() => s.cleanup());
const nested = (...args: string[]) =>
  runBin(["sandbox", "--writable-root", s.root, "--", process.execPath, BIN, ...args], { env: s.env, cwd: s.project });

const ONLY_WEAKER = "needs a machine where only the weaker Landlock fallback works (bwrap there, its namespaces refused)";
let onlyWeaker = false;
beforeAll(async () => {
  if (!existsSync("/usr/bin/bwrap")) return;
  const probe = await nested("sandbox", "--probe", "--json");
  onlyWeaker = probe.stdout !== "" && JSON.parse(probe.stdout).level === "weaker";
});

const REFUSAL =
  "the Landlock+seccomp fallback (weaker isolation) is available but not permitted: allow it with --allow-weaker-isolation " +
  "or allow_weaker_isolation = true in your shellgate config (library: the allowWeakerIsolation option)";

describe("the weaker Landlock fallback (built bin, nested in shellgate sandbox)", () => {
  it("is refused by default with exit 125, naming the flag and the config key", async (ctx) => {
    if (!onlyWeaker) ctx.skip(ONLY_WEAKER);
    for (const args of [["exec", "--", "true"], ["sandbox", "--", "true"]]) {
      const r = await nested(...args);
      expect(r.code, args[0]).toBe(125);
      expect(r.stderr, args[0]).toContain(REFUSAL);
      expect(r.stderr).not.toContain("allowWeakerIsolation is off");
    }
  });

  // The outer sandbox lets the project be written; the inner one, read-only, does not.
  const outside = path.join(s.project, "inner.txt");
  const tryWrite = `touch ${outside} 2>/dev/null && echo wrote || echo refused`;

  it("exec --allow-weaker-isolation runs the command under Landlock", async (ctx) => {
    if (!onlyWeaker) ctx.skip(ONLY_WEAKER);
    const r = await nested("exec", "--allow-weaker-isolation", "--sandbox", "read-only", "sh", "-c", tryWrite);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("refused\n");
    expect(existsSync(outside)).toBe(false);
    // control: without a sandbox the same write goes through
    const control = await nested("exec", "--sandbox", "danger-full-access", "sh", "-c", tryWrite);
    expect(control.stdout).toBe("wrote\n");
    rmSync(outside);
  });

  it("allow_weaker_isolation = true in the user config does the same; doctor reports the isolation", async (ctx) => {
    if (!onlyWeaker) ctx.skip(ONLY_WEAKER);
    mkdirSync(path.dirname(userConfig), { recursive: true });
    writeFileSync(userConfig, "allow_weaker_isolation = true\n");
    try {
      // read-only: with /tmp writable, a checkout under /tmp puts the helper where Landlock cannot hold it
      const r = await nested("exec", "--sandbox", "read-only", "--", "true");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const doctor = await nested("doctor", "--json");
      expect(JSON.parse(doctor.stdout).sandbox).toMatchObject({ ok: true, isolation: expect.stringMatching(/^landlock\+seccomp \(weaker/) });
    } finally {
      writeFileSync(userConfig, "");
    }
  });

  it("an untrusted project config may not allow it (125, CLI_PROJECT_NOT_TRUSTED)", async () => {
    const projectConfig = path.join(s.project, ".shellgate", "config.toml");
    mkdirSync(path.dirname(projectConfig), { recursive: true });
    writeFileSync(projectConfig, "allow_weaker_isolation = true\n");
    try {
      const r = await runBin(["exec", "--", "true"], { env: s.env, cwd: s.project });
      expect(r.code).toBe(125);
      expect(r.stderr).toContain(`  - ${projectConfig}:1:1: allow_weaker_isolation = true (your configuration gives false)`);
    } finally {
      writeFileSync(projectConfig, "");
    }
  });

  it("mcp --allow-weaker-isolation serves commands under Landlock, and says so in the client's log", async (ctx) => {
    if (!onlyWeaker) ctx.skip(ONLY_WEAKER);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "sandbox", "--writable-root", s.root, "--", process.execPath, BIN, "mcp", "--cwd", s.project, "--allow-weaker-isolation", "--sandbox", "read-only"],
      env: s.env,
      cwd: s.project,
      stderr: "pipe",
    });
    const client = new Client({ name: "shellgate-test", version: "1.0.0" }, { capabilities: {} });
    const logs: LoggingMessageNotification["params"][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: "shell_command", arguments: { command: tryWrite } })) as CallToolResult;
      await eventually(() => logs.length > 0);
      expect(logs).toContainEqual({
        level: "warning",
        logger: "shellgate",
        data: expect.stringMatching(/^sandbox: commands run under weaker isolation: landlock\+seccomp \(weaker/),
      });
      const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
      expect(result.isError ?? false).toBe(false);
      expect(text).toMatch(/Output:\nrefused\n/);
      expect(existsSync(outside)).toBe(false);
    } finally {
      await client.close();
    }
  });
});
