// Network by domain end to end: the orchestrator's per-run proxy, the real Linux sandbox (its own
// empty network namespace, the proxy's sockets relayed in), and curl inside it. A loopback HTTP
// server stands in for the internet; the proxy's resolver maps the test names to it. Every escape
// case runs the same command unsandboxed first, as the control.
import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { Orchestrator, OrchestratorEvent, OrchestratorOptions } from "@shellgate/orchestrator";
import { call, cleanupAll, createOrchestrator, describeWithSandbox, linuxSandboxAvailability, outputSection, workspace } from "./support/sandbox.js";
import type { Workspace } from "./support/sandbox.js";

const execFileAsync = promisify(execFile);
const sandbox = await linuxSandboxAvailability();
const curl = spawnSync("curl", ["--version"]).status === 0 ? { ok: true, reason: "" } : { ok: false, reason: "curl is not installed" };
let server: http.Server;
let port = 0;
const dirs: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => res.end(`pong from ${req.headers.host ?? "?"}\n`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(async () => {
  await cleanupAll();
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const resolver = async () => [{ address: "127.0.0.1", family: 4 as const }];

async function create(ws: Workspace, options: OrchestratorOptions = {}): Promise<{ orch: Orchestrator; events: OrchestratorEvent[] }> {
  // Sockets outside every writable root (the workspace and the temp dirs are writable roots).
  const socketDir = await mkdtemp("/var/tmp/shellgate-net-test-");
  dirs.push(socketDir);
  const orch = await createOrchestrator(ws, { approvalPolicy: "never", networkResolver: resolver, networkSocketDir: socketDir, ...options });
  const events: OrchestratorEvent[] = [];
  orch.on((e) => events.push(e));
  return { orch, events };
}

const run = (orch: Orchestrator, command: string) => call(orch, "shell_command", { command, login: false, timeout_ms: 20_000 });

describeWithSandbox("network by domain through the orchestrator and the Linux sandbox", sandbox, () => {
  it("a granted host is reachable over the HTTP proxy, a CONNECT tunnel and SOCKS5; another host is refused with a readable answer and listed", async () => {
    const ws = await workspace();
    const { orch, events } = await create(ws, { network: { allow: ["registry.test"] } });
    const plain = await run(orch, `curl -sS http://registry.test:${port}/`);
    expect(outputSection(plain.content)).toContain(`pong from registry.test:${port}`);
    const tunnel = await run(orch, `curl -sS -p -x "$HTTPS_PROXY" http://registry.test:${port}/`);
    expect(outputSection(tunnel.content)).toContain("pong from registry.test");
    const socks = await run(orch, `curl -sS -x "$ALL_PROXY" http://registry.test:${port}/`);
    expect(outputSection(socks.content)).toContain("pong from registry.test");

    const refused = await run(orch, `curl -sS http://evil.test:${port}/`);
    expect(outputSection(refused.content)).toContain(`network access to evil.test:${port} refused`);
    expect(refused.content).toContain(`[shellgate] network: refused evil.test:${port}: no rule or grant allows this host; to allow it:`);
    expect(refused.networkRefusals).toEqual([expect.objectContaining({ host: "evil.test", port })]);
    const decisions = events.flatMap((e) => (e.type === "network.request" ? [`${e.host} ${e.protocol} ${e.decision}`] : []));
    expect(decisions).toEqual(["registry.test http allow", "registry.test https allow", "registry.test socks5_tcp allow", "evil.test http deny"]);
  });

  it("a direct connection that ignores the proxy fails inside; the same command unsandboxed reaches the server (control)", async () => {
    const command = `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${port}/`;
    // Asynchronously: the server answering it runs in this process.
    const control = await execFileAsync("bash", ["-c", command], { encoding: "utf8" });
    expect(control.stdout).toContain("pong");
    const ws = await workspace();
    const { orch } = await create(ws, { network: { allow: ["registry.test", "127.0.0.1"] } });
    const direct = await run(orch, command);
    expect(direct.success).toBe(false);
    expect(outputSection(direct.content)).not.toContain("pong");
  });

  it("a rule that carries its own sandbox runs its command unasked, confined, reaching only the rule's host", async () => {
    const ws = await workspace();
    const rules = path.join(ws.home, "net.rules");
    await writeFile(rules, 'prefix_rule(pattern=["curl"], decision="allow", sandbox="workspace-write", network=["registry.test"])\n');
    const traces: string[] = [];
    const { orch } = await create(ws, { rulesFiles: [rules] });
    orch.on((e) => {
      if (e.type === "trace") traces.push(`${e.trace.sandboxOverride} ${e.trace.initialSandbox}`);
    });
    const allowed = await call(orch, "shell", { command: ["curl", "-sS", `http://registry.test:${port}/`] });
    expect(allowed.content).toContain("pong from registry.test");
    const other = await call(orch, "shell", { command: ["curl", "-sS", `http://evil.test:${port}/`] });
    expect(other.content).toContain("refused");
    expect(traces).toEqual(["rule_sandbox linux", "rule_sandbox linux"]);
    // Without the rule's command, nothing is granted: no proxy, no network.
    const py = await run(orch, `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}' 2>&1; echo rc=$?`);
    expect(outputSection(py.content)).toMatch(/rc=1/);
  });

  it("when the proxy cannot start the command runs without network, and the output says why", async () => {
    const ws = await workspace();
    const { orch } = await create(ws, { network: { allow: ["registry.test"] }, networkSocketDir: "/var/tmp/shellgate-no-such-dir/x" });
    const r = await run(orch, `curl -sS --max-time 5 http://registry.test:${port}/`);
    expect(r.success).toBe(false);
    expect(r.content).toMatch(/\[shellgate\] network: the network proxy could not start \(.*\), so this command ran without network/);
    // The same note, structured, for integrators (the CLI's exec prints it from there).
    expect(r.networkNote).toMatch(/^the network proxy could not start \(.*\), so this command ran without network$/);
  });
}, curl);
