import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  EXEC_COMMAND_DESCRIPTION,
  MAX_OUTPUT_DELTAS_PER_CALL,
  Orchestrator,
  OrchestratorConfigError,
  defaultProtectedPaths,
  toAnthropicToolResult,
  toMcpCallToolResult,
  toOpenAIFunctionCallOutput,
} from "./support/internals.js";
import type { ApprovalRequest, DecisionTrace, PipeSpawner, SessionProcessFactory } from "./support/internals.js";
import { SandboxManager, SandboxUnavailableError, type SandboxBackend } from "@shellgate/sandbox";
import { call, cleanupAll, orchestrator, outputSection, workspace } from "./support/orchestrator-helpers.js";

afterEach(cleanupAll);

describe("malformed calls", () => {
  it("name the field, reach the model as text, and start no process", async () => {
    const ws = await workspace();
    let spawned = 0;
    const spawnPipe: PipeSpawner = () => {
      spawned += 1;
      throw new Error("must not spawn");
    };
    const processFactory: SessionProcessFactory = () => {
      spawned += 1;
      throw new Error("must not spawn");
    };
    const { orch, events } = orchestrator(ws, { spawnPipe, processFactory });
    const cases: Array<[string, unknown, string]> = [
      ["shell", { command: "ls" }, "command"],
      ["container.exec", { command: [] }, "command"],
      ["shell", { command: ["ls"], timeout_ms: "fast" }, "timeout_ms"],
      ["shell", { command: ["ls"], workdir: "does/not/exist" }, "workdir"],
      ["shell_command", {}, "command"],
      ["shell_command", { command: "ls", login: "yes" }, "login"],
      ["shell_command", { command: "ls", sandbox_permissions: "root" }, "sandbox_permissions"],
      ["exec_command", { cmd: "ls", tty: 1 }, "tty"],
      ["exec_command", { cmd: "ls", prefix_rule: "npm test" }, "prefix_rule"],
      ["exec_command", { command: ["bash", "-i"] }, "cmd"],
      ["write_stdin", { session_id: "1001" }, "session_id"],
      ["write_stdin", { session_id: 1001, chars: 5 }, "chars"],
    ];
    for (const [tool, args, field] of cases) {
      const response = await call(orch, tool, args);
      expect(response.success, `${tool} ${JSON.stringify(args)}`).toBe(false);
      expect(response.error).toMatchObject({ code: "ORCH_INVALID_ARGUMENTS", field });
      expect(response.content).toContain(`\`${field}\``);
      expect(response.tool).toBe(tool);
    }
    const badJson = await orch.handleToolCall({ name: "shell", payload: { type: "function", arguments: "{oops" } });
    expect(badJson.error).toMatchObject({ code: "ORCH_INVALID_ARGUMENTS", field: "(arguments)" });
    const unknown = await orch.handleToolCall({ name: "rm_rf", arguments: "{}" });
    expect(unknown.error?.code).toBe("ORCH_UNKNOWN_TOOL");
    expect(spawned).toBe(0);
    expect(events.filter((e) => e.type === "exec.begin")).toEqual([]);
  });

  it("rejects bad options naming the option", () => {
    expect(() => new Orchestrator({ approvalPolicy: "sometimes" as never })).toThrow(OrchestratorConfigError);
    const error = (() => {
      try {
        new Orchestrator({ sandboxPolicy: { mode: "workspace-write", writableRoots: ["relative"] } });
      } catch (e) {
        return e as OrchestratorConfigError;
      }
      return undefined;
    })();
    expect(error?.field).toBe("sandboxPolicy.writableRoots.0");
    expect(() => new Orchestrator({ cwd: "relative/dir" })).toThrow(/cwd/);
    expect(() => new Orchestrator({ rulesFiles: ["x.rules"] })).toThrow(/Orchestrator\.create/);
    expect(() => new Orchestrator({ networkTunnelSplicer: "helper" })).toThrow(
      "networkTunnelSplicer: must be an absolute path or a function that returns one",
    );
    expect(() => new Orchestrator({ networkTunnelSplicer: "/usr/lib/helper" })).not.toThrow();
    expect(() => new Orchestrator({ networkTunnelSplicer: () => undefined })).not.toThrow();
  });

  it("names the field that was wrong where several fields share one schema", () => {
    const fieldOf = (options: Record<string, unknown>) => {
      try {
        new Orchestrator(options as never);
      } catch (e) {
        return { field: (e as OrchestratorConfigError).field, message: (e as Error).message };
      }
      return undefined;
    };
    for (const key of ["approvalHandler", "processFactory", "spawnPipe", "networkGrantHint", "networkResolver"]) {
      expect(fieldOf({ [key]: "not a function" })).toEqual({ field: key, message: `${key}: must be a function` });
      expect(fieldOf({ [key]: () => undefined })).toBeUndefined();
    }
    for (const key of ["spillLimitBytes", "outputTokenLimit", "maxEmptyPollMs"]) {
      expect(fieldOf({ [key]: 0 })?.field).toBe(key);
      expect(fieldOf({ [key]: 1.5 })?.field).toBe(key);
    }
    for (const key of ["allowLoginShell", "sessionApprovals", "defaultProtectedPaths"]) expect(fieldOf({ [key]: "yes" })?.field).toBe(key);
    expect(fieldOf({ userRulesFile: "" })?.field).toBe("userRulesFile");
    expect(fieldOf({ shell: "" })?.field).toBe("shell");
    expect(fieldOf({ spillDir: "" })?.field).toBe("spillDir");
  });

  it("create validates the options once and still refuses a relative default protected path", async () => {
    const ws = await workspace();
    // The defaults come from the environment: a relative HOME makes relative paths, which the sandbox
    // could not hold read-only. `create` refuses them as the constructor's schema would.
    const relativeHome = Orchestrator.create({ cwd: ws.dir, hostEnv: { HOME: "home-relative" }, sandboxPolicy: { mode: "danger-full-access" } });
    await expect(relativeHome).rejects.toMatchObject({ field: expect.stringMatching(/^protectedPaths\.\d+$/), message: expect.stringContaining("must be an absolute path") });
    // Control: the same call with an absolute HOME builds, and the defaults are there.
    const home = path.join(ws.dir, "home");
    const orch = await Orchestrator.create({ cwd: ws.dir, hostEnv: { HOME: home }, sandboxPolicy: { mode: "danger-full-access" } });
    try {
      expect(orch.pipeline).toBeDefined();
      expect(defaultProtectedPaths({ cwd: ws.dir, env: { HOME: home } }).every((p) => path.isAbsolute(p))).toBe(true);
      // What create validated reaches the session: its spill limit, its approval policy.
      const custom = await Orchestrator.create({ cwd: ws.dir, approvalPolicy: "never", spillDir: false, sandboxPolicy: { mode: "danger-full-access" } });
      expect(custom.approvalPolicy).toBe("never");
      await custom.close();
      // A spill directory the caller names is made by create, before any (sandboxed) run could hold
      // its place with a placeholder the sandbox removes again: a real, private directory.
      const spillDir = path.join(ws.dir, "saved", "outputs");
      const spilling = await Orchestrator.create({ cwd: ws.dir, spillDir, sandboxPolicy: { mode: "danger-full-access" } });
      expect(((await stat(spillDir)).mode & 0o7777).toString(8)).toBe("700");
      await spilling.close();
    } finally {
      await orch.close();
    }
    // Bad options are still refused by create, naming the field.
    await expect(Orchestrator.create({ cwd: ws.dir, spawnPipe: 1 as never })).rejects.toMatchObject({ field: "spawnPipe" });
  });
});

describe("tool definitions", () => {
  it("advertise shell, shell_command, exec_command and write_stdin in the three formats", async () => {
    const { orch } = orchestrator(await workspace());
    const openai = orch.toolDefinitions("openai");
    expect(openai.map((t) => t.name)).toEqual(["shell", "shell_command", "exec_command", "write_stdin"]);
    expect(openai.map((t) => t.parameters.required)).toEqual([["command"], ["command"], ["cmd"], ["session_id"]]);
    const anthropic = orch.toolDefinitions("anthropic");
    const mcp = orch.toolDefinitions("mcp");
    expect(anthropic.map((t) => t.input_schema)).toEqual(mcp.map((t) => t.inputSchema));
    expect(anthropic[2]?.description).toBe(EXEC_COMMAND_DESCRIPTION);
    expect(JSON.stringify(mcp)).not.toContain("$schema");
    expect(orch.toolDefinitions("mcp", ["container.exec"])[0]).toMatchObject({ name: "container.exec" });
  });

  it("mark known-safe commands as non-mutating", async () => {
    const { orch } = orchestrator(await workspace());
    expect(await orch.isMutating({ name: "shell", arguments: { command: ["ls", "-la"] } })).toBe(false);
    expect(await orch.isMutating({ name: "shell_command", arguments: { command: "grep -r TODO src/ | head" } })).toBe(false);
    expect(await orch.isMutating({ name: "shell_command", arguments: { command: "rm -rf build" } })).toBe(true);
    expect(await orch.isMutating({ name: "write_stdin", arguments: { session_id: 1 } })).toBe(true);
  });
});

describe("one-shot tools", () => {
  it("run the seed's grep example through shell_command and return freeform text", async () => {
    const ws = await workspace();
    await mkdir(path.join(ws.dir, "src"));
    const lines = Array.from({ length: 41 }, () => "fn x() {}");
    await writeFile(path.join(ws.dir, "src", "main.rs"), [...lines, "    // TODO: refactor this", ""].join("\n"));
    const { orch } = orchestrator(ws);
    const response = await orch.handleToolCall({
      callId: "call_abc123",
      name: "shell_command",
      payload: { type: "function", arguments: JSON.stringify({ command: "grep -r 'TODO' src/", timeout_ms: 5000 }) },
    });
    expect(response.callId).toBe("call_abc123");
    expect(response.success).toBe(true);
    expect(response.exitCode).toBe(0);
    expect(response.content).toMatch(/^Exit code: 0\nWall time: \d+(\.\d)? seconds\nOutput:\nsrc\/main\.rs:    \/\/ TODO: refactor this\n$/);
  });

  it("accept custom (freeform) input for shell_command and report non-zero exits as results", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws);
    const response = await orch.handleToolCall({
      name: "shell_command",
      payload: { type: "custom", input: "echo out; echo err >&2; exit 3" },
    });
    expect(response.success).toBe(false);
    expect(response.error).toBeUndefined();
    expect(response.exitCode).toBe(3);
    expect(response.content.startsWith("Exit code: 3\n")).toBe(true);
    expect(outputSection(response.content)).toMatch(/out\n[\s\S]*err\n/);
  });

  it("return structured JSON for shell, with workdir resolved against the cwd", async () => {
    const ws = await workspace();
    await mkdir(path.join(ws.dir, "sub"));
    const { orch } = orchestrator(ws);
    const ok = await call(orch, "shell", { command: ["pwd"], workdir: "sub" });
    expect(JSON.parse(ok.content)).toEqual({
      output: `${path.join(ws.dir, "sub")}\n`,
      metadata: { exit_code: 0, duration_seconds: expect.any(Number) },
    });
    const failed = await call(orch, "container.exec", { command: ["ls", "/definitely/not/here"] });
    const parsed = JSON.parse(failed.content) as { output: string; metadata: { exit_code: number } };
    expect(parsed.metadata.exit_code).toBe(2);
    expect(parsed.output).toContain("No such file");
    expect(failed.success).toBe(false);
  });

  it("kill a command at timeout_ms and say so (exit code 124)", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws);
    // Generous, so `started` is out before the kill even on a loaded machine.
    const response = await call(orch, "shell_command", { command: "echo started; sleep 20", login: false, timeout_ms: 2_000 });
    expect(response.exitCode).toBe(124);
    expect(response.success).toBe(false);
    expect(outputSection(response.content)).toMatch(/^command timed out after \d+ milliseconds\nstarted\n/);
  });

  it("truncate long output to the token budget and spill the full output to a file", async () => {
    const ws = await workspace();
    const spillDir = path.join(ws.dir, "spill");
    const { orch } = orchestrator(ws, { outputTokenLimit: 20, spillDir });
    const response = await call(orch, "shell_command", { command: "seq 1 3000", login: false });
    const full = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join("");
    expect(response.content).toContain("Total output lines: 3000\n");
    expect(response.content).toContain(`Full output saved to: ${response.fullOutputPath}\n`);
    expect(response.fullOutputPath?.startsWith(spillDir)).toBe(true);
    expect(outputSection(response.content)).toMatch(/^1\n2\n[\s\S]*…\d+ tokens truncated…[\s\S]*2999\n3000\n$/);
    expect(await readFile(response.fullOutputPath as string, "utf8")).toBe(full);

    const structured = await call(orch, "shell", { command: ["seq", "1", "3000"] });
    const parsed = JSON.parse(structured.content) as { output: string; metadata: { full_output_path: string } };
    expect(parsed.output).toMatch(/^Warning: truncated output \(original token count: \d+\)\nTotal output lines: 3000\n\n1\n/);
    expect(await readFile(parsed.metadata.full_output_path, "utf8")).toBe(full);
  });

  it("cancel a running command through the AbortSignal", async () => {
    const ws = await workspace();
    const { orch, events } = orchestrator(ws);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const response = await call(orch, "shell_command", { command: "sleep 20", login: false }, { signal: controller.signal });
    expect(response.error?.code).toBe("ORCH_CANCELLED");
    expect(response.content).toBe("exec command cancelled");
    const trace = events.find((e) => e.type === "trace");
    expect(trace?.type === "trace" && trace.trace.outcome).toBe("cancelled");
  });

  it("reject a command that needs approval when no handler is configured, without running it", async () => {
    const ws = await workspace();
    let spawned = 0;
    const { orch } = orchestrator(ws, {
      approvalPolicy: "untrusted",
      spawnPipe: () => {
        spawned += 1;
        throw new Error("must not spawn");
      },
    });
    const response = await call(orch, "shell_command", { command: "touch created-file" });
    expect(response.error?.code).toBe("ORCH_APPROVAL_UNAVAILABLE");
    expect(response.content).toMatch(/^exec command rejected: `.*touch created-file.*` needs approval \(.*\); no one can approve it here, so it was not run\. /);
    expect(spawned).toBe(0);
  });
});

describe("events and the decision trace", () => {
  it("emit begin, output deltas and end for a call, and a trace that holds no command, cwd, env or output", async () => {
    const ws = await workspace();
    const marker = "zq-marker-5912";
    const { orch, events } = orchestrator(ws, {
      hostEnv: { ...ws.hostEnv, MARKER_VALUE: `${marker}-env` },
    });
    await mkdir(path.join(ws.dir, `${marker}-dir`));
    const response = await call(
      orch,
      "shell_command",
      { command: `echo ${marker}-out; printf "$MARKER_VALUE" >&2`, workdir: `${marker}-dir`, login: false },
      { callId: "evt-1" },
    );
    expect(response.content).toContain(`${marker}-out`);
    expect(response.content).toContain(`${marker}-env`);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("exec.begin");
    expect(types.at(-1)).toBe("exec.end");
    expect(types).toContain("exec.output_delta");
    const begin = events[0];
    expect(begin).toMatchObject({ type: "exec.begin", callId: "evt-1", tool: "shell_command", cwd: path.join(ws.dir, `${marker}-dir`) });
    expect(events.at(-1)).toMatchObject({ type: "exec.end", callId: "evt-1", exitCode: 0, timedOut: false });
    const deltaText = events
      .filter((e) => e.type === "exec.output_delta")
      .map((e) => (e.type === "exec.output_delta" ? Buffer.from(e.chunk).toString() : ""))
      .join("");
    expect(deltaText).toContain(`${marker}-out`);

    const traces = events.filter((e) => e.type === "trace").map((e) => (e as { trace: DecisionTrace }).trace);
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatchObject({
      callId: "evt-1",
      tool: "shell_command",
      approvalRequirement: "skip",
      initialSandbox: "none",
      attempts: 1,
      outcome: "success",
    });
    const serialized = JSON.stringify(traces);
    expect(serialized).not.toContain(marker);
    expect(serialized).not.toContain("echo");
    expect(serialized).not.toContain(ws.dir);
  });
});

describe("payload kinds and response wrappers", () => {
  it("accepts local_shell and mcp payloads and wraps responses for each API", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws);
    const local = await orch.handleToolCall({ name: "container.exec", payload: { type: "local_shell", params: { command: ["echo", "local"] } } });
    expect(JSON.parse(local.content).output).toBe("local\n");
    const mcp = await orch.handleToolCall({
      callId: "mcp-1",
      name: "shell_command",
      payload: { type: "mcp", server: "shellgate", tool: "shell_command", arguments: { command: "echo via-mcp", login: false } },
    });
    expect(outputSection(mcp.content)).toBe("via-mcp\n");
    expect(toMcpCallToolResult(mcp)).toEqual({ content: [{ type: "text", text: mcp.content }], isError: false });
    expect(toOpenAIFunctionCallOutput(mcp)).toEqual({ type: "function_call_output", call_id: "mcp-1", output: mcp.content });
    expect(toAnthropicToolResult({ ...mcp, success: false })).toMatchObject({ tool_use_id: "mcp-1", is_error: true });
  });

  it("answers a call that is not even an object with an error, not an exception", async () => {
    const { orch } = orchestrator(await workspace());
    const response = await orch.handleToolCall(null as never);
    expect(response.success).toBe(false);
    expect(response.error?.code).toBe("ORCH_INVALID_ARGUMENTS");
  });
});

describe("dangerous commands hidden in a wrapper that cannot be split", () => {
  const noSpawn = (counter: { n: number }): PipeSpawner => () => {
    counter.n += 1;
    throw new Error("must not spawn");
  };

  it("are forbidden under never and never start", async () => {
    const ws = await workspace();
    const spawned = { n: 0 };
    const { orch } = orchestrator(ws, { approvalPolicy: "never", spawnPipe: noSpawn(spawned) });
    for (const command of ['rm -rf "$X" >/dev/null', 'echo "$(rm -rf d)"']) {
      const response = await call(orch, "shell_command", { command, login: false });
      expect(response.error?.code).toBe("ORCH_FORBIDDEN");
    }
    expect(spawned.n).toBe(0);
  });

  it("are asked about under on-request (and a denial starts nothing)", async () => {
    const ws = await workspace();
    const spawned = { n: 0 };
    const requests: ApprovalRequest[] = [];
    const { orch } = orchestrator(ws, {
      approvalPolicy: "on-request",
      spawnPipe: noSpawn(spawned),
      approvalHandler: async (request) => {
        requests.push(request);
        return "denied";
      },
    });
    const response = await call(orch, "shell_command", { command: 'rm -rf "$X" >/dev/null', login: false });
    expect(response.error?.code).toBe("ORCH_REJECTED");
    expect(requests.map((r) => r.argv)).toEqual([["/bin/bash", "-c", 'rm -rf "$X" >/dev/null']]);
    expect(spawned.n).toBe(0);
  });
});

describe("approval through the orchestrator", () => {
  it("asks the handler with the tool, reason and argv, emits approval events, and caches a session approval", async () => {
    const ws = await workspace();
    const requests: ApprovalRequest[] = [];
    const { orch, events } = orchestrator(ws, {
      approvalPolicy: "untrusted",
      approvalHandler: async (request) => {
        requests.push(request);
        return "approved_for_session";
      },
    });
    const first = await call(orch, "exec_command", { cmd: "touch approved.txt", login: false });
    expect(first.exitCode).toBe(0);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ tool: "exec_command", argv: ["/bin/bash", "-c", "touch approved.txt"], cwd: ws.dir });
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["approval.requested", "approval.decided"]));
    await call(orch, "exec_command", { cmd: "touch approved.txt", login: false });
    expect(requests).toHaveLength(1);
    // A tty session is a different approval.
    await call(orch, "exec_command", { cmd: "touch approved.txt", login: false, tty: true });
    expect(requests).toHaveLength(2);
    const traces = events.filter((e) => e.type === "trace").map((e) => (e as { trace: DecisionTrace }).trace);
    expect(traces.map((t) => t.reviewDecision)).toEqual(["approved_for_session", "cached", "approved_for_session"]);
  });
});

describe("approving an interactive session", () => {
  it("the request says it starts a session whose later input is not asked about; a command without a terminal has no such flag", async () => {
    const ws = await workspace();
    const requests: ApprovalRequest[] = [];
    const { orch } = orchestrator(ws, {
      approvalPolicy: "untrusted",
      approvalHandler: async (request) => {
        requests.push(request);
        return "denied";
      },
    });
    const args = { cmd: "touch made.txt", login: false, sandbox_permissions: "require_escalated", justification: "needs the host" };
    expect((await call(orch, "exec_command", { ...args, tty: true })).error?.code).toBe("ORCH_REJECTED");
    expect((await call(orch, "exec_command", { ...args, tty: false })).error?.code).toBe("ORCH_REJECTED");
    expect(requests.map((r) => [r.interactiveSession, r.sandboxPermissions])).toEqual([
      [true, "require_escalated"],
      [undefined, "require_escalated"],
    ]);
  });
});

describe("Orchestrator.create and sandbox backends", () => {
  const missing: SandboxBackend = {
    name: "fake-missing",
    platform: process.platform,
    sandboxType: "fake",
    isAvailable: async () => ({ available: false, reason: "fake: not on this machine" }),
    plan: async () => {
      throw new Error("not planned in this test");
    },
    transform: async () => {
      throw new Error("never transformed in this test");
    },
  };

  it("registers no backend by default: a policy that needs a sandbox is refused up front, never run unsandboxed", async () => {
    const ws = await workspace();
    for (const mode of ["workspace-write", "read-only"] as const) {
      const error = await Orchestrator.create({ cwd: ws.dir, sandboxPolicy: { mode } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SandboxUnavailableError);
      expect((error as SandboxUnavailableError).reasons).toEqual([]);
    }
  });

  it("names every registered backend's reason when none is available", async () => {
    const ws = await workspace();
    const error = await Orchestrator.create({ cwd: ws.dir, sandboxBackends: [missing] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect(String((error as Error).message)).toContain("fake: not on this machine");
    const manager = new SandboxManager();
    manager.register(missing);
    await expect(Orchestrator.create({ cwd: ws.dir, sandboxManager: manager, sandboxPolicy: { mode: "read-only" } })).rejects.toBeInstanceOf(
      SandboxUnavailableError,
    );
  });

  it("holds defaultProtectedPaths on top of the caller's protectedPaths (and only those when asked to opt out)", async () => {
    const ws = await workspace();
    const seen: string[][] = [];
    const recording: SandboxBackend = {
      ...missing,
      name: "fake-recording",
      isAvailable: async () => ({ available: true, isolation: "fake" }),
      transform: async (spec, _policy, options) => {
        seen.push([...(options.protectedPaths ?? [])]);
        return { argv: [...spec.argv], cwd: spec.cwd, env: { ...spec.env }, sandboxType: "fake", isolation: "fake" };
      },
    };
    const extra = path.join(ws.dir, "extra");
    for (const defaults of [true, false]) {
      const orch = await Orchestrator.create({
        cwd: ws.dir, hostEnv: ws.hostEnv, shell: "/bin/bash", approvalPolicy: "never", sandboxBackends: [recording],
        protectedPaths: [extra], defaultProtectedPaths: defaults,
      });
      const response = await call(orch, "shell_command", { command: "true", login: false });
      await orch.close();
      expect(response.exitCode, response.content).toBe(0);
    }
    const expected = [...defaultProtectedPaths({ cwd: ws.dir }), ...defaultProtectedPaths({ cwd: ws.dir, env: ws.hostEnv })];
    expect(seen[0]).toEqual(expect.arrayContaining([extra, ...expected, path.join(ws.dir, ".shellgate")]));
    expect(seen[1]).toContain(extra);
    expect(seen[1]).not.toContain(path.join(ws.dir, ".shellgate"));
  });

  it("needs no backend for a policy without a platform sandbox (control)", async () => {
    const ws = await workspace();
    for (const mode of ["danger-full-access", "external-sandbox"] as const) {
      const orch = await Orchestrator.create({ cwd: ws.dir, sandboxPolicy: { mode } });
      expect(orch.sandboxManager.backends ?? []).toHaveLength(0);
      await orch.close();
    }
  });
});

describe("close()", () => {
  it("cancels in-flight calls and refuses new ones", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws);
    const running = call(orch, "shell_command", { command: "sleep 20", login: false, timeout_ms: 30_000 });
    await new Promise((r) => setTimeout(r, 200));
    await orch.close();
    const response = await running;
    expect(response.error?.code).toBe("ORCH_CANCELLED");
    expect((await call(orch, "shell", { command: ["true"] })).content).toBe("exec command cancelled");
  });
});

describe("allowLoginShell: false", () => {
  it("runs non-login shells by default, refuses login: true naming the field, and hides `login`", async () => {
    const ws = await workspace();
    const { orch, events } = orchestrator(ws, { allowLoginShell: false });
    const refused = await call(orch, "exec_command", { cmd: "true", login: true });
    expect(refused.error).toMatchObject({ code: "ORCH_INVALID_ARGUMENTS", field: "login" });
    expect(refused.content).toContain("login shell is disabled by config; omit `login` or set it to false.");
    await call(orch, "shell_command", { command: "true" }, { callId: "no-login" });
    const begin = events.find((e) => e.type === "exec.begin" && e.callId === "no-login");
    expect(begin?.type === "exec.begin" && begin.argv.slice(1, 2)).toEqual(["-c"]);
    const [, shellCommand, execCommand] = orch.toolDefinitions("mcp");
    expect(Object.keys(shellCommand?.inputSchema.properties as object)).not.toContain("login");
    expect(Object.keys(execCommand?.inputSchema.properties as object)).not.toContain("login");
    expect(Object.keys(orchestrator(ws).orch.toolDefinitions("mcp")[2]?.inputSchema.properties as object)).toContain("login");
  });
});

describe("output delta cap for one-shot calls", () => {
  it("stops emitting deltas at the cap while the full output still reaches the model", async () => {
    const ws = await workspace();
    const chunks = MAX_OUTPUT_DELTAS_PER_CALL + 50;
    const aggregated = "z".repeat(chunks);
    const spawnPipe: PipeSpawner = () => {
      const exit = { exitCode: 0, signal: null, timedOut: false, cancelled: false };
      return {
        pid: 1,
        kind: "pipe",
        tag: "fake",
        hasExited: true,
        exited: Promise.resolve(exit),
        write: () => undefined,
        closeStdin: () => undefined,
        onOutput: (cb) => {
          for (let i = 0; i < chunks; i += 1) cb({ stream: "stdout", data: Buffer.from("z") });
          return () => undefined;
        },
        result: async () => ({
          ...exit,
          stdout: aggregated,
          stderr: "",
          aggregated,
          durationMs: 5,
          truncated: false,
          droppedBytes: 0,
          drainTimedOut: false,
        }),
        terminate: async () => undefined,
      };
    };
    const { orch, events } = orchestrator(ws, { spawnPipe, outputTokenLimit: 100_000 });
    const response = await call(orch, "shell", { command: ["chatty"] });
    expect(JSON.parse(response.content).output).toBe(aggregated);
    expect(events.filter((e) => e.type === "exec.output_delta")).toHaveLength(MAX_OUTPUT_DELTAS_PER_CALL);
    expect(events.filter((e) => e.type === "exec.end")).toHaveLength(1);
  });
});
