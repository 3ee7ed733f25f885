// The pipeline with the real session proxy (@shellgate/network-proxy on loopback TCP), no sandbox:
// the "command" is the launcher itself, making HTTP requests through the proxy the fake backend's
// environment points at. A loopback HTTP server stands in for the internet; the resolver maps the
// test names to it.
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecEnv } from "@shellgate/sandbox";
import {
  ExecPipeline,
  HostApprovals,
  NetworkGrantsSchema,
  NetworkHostPolicy,
  normalizeGrants,
  type HostRule,
  type LaunchResult,
  type PipelineContext,
  type SessionNetwork,
  tunnelSplicerOnce,
} from "../support/internals.js";
import { makeContext, probe, request, scriptedHandler } from "../support/pipeline-fakes.js";

let server: http.Server;
let serverPort = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => res.end(`hello from ${req.headers.host ?? "?"}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serverPort = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const resolver = async () => [{ address: "127.0.0.1", family: 4 as const }];

/** One HTTP GET through the proxy at `proxyPort` for `http://host:serverPort/`. */
function getVia(proxyPort: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: proxyPort, path: `http://${host}:${serverPort}/`, headers: { host: `${host}:${serverPort}` } }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

function proxyPortOf(env: ExecEnv): number {
  const url = env.env["HTTP_PROXY"];
  if (!url) throw new Error("the run has no proxy");
  return Number(new URL(url).port);
}

function network(ctx: PipelineContext, opts: { allow?: string[]; rules?: HostRule[] } = {}): SessionNetwork {
  return {
    hostPolicy: new NetworkHostPolicy(() => ({ networkRules: opts.rules ?? [] }), normalizeGrants(NetworkGrantsSchema.parse({ allow: opts.allow ?? [] }), "--allow-domain")),
    approvals: new HostApprovals({ approvalPolicy: ctx.approvalPolicy, sessionApprovals: true, events: ctx.events, ...(ctx.approvalHandler ? { approvalHandler: ctx.approvalHandler } : {}) }),
    grantHint: (host) => `re-run with --allow-domain ${host}`,
    resolver,
  };
}

/** A manager whose runs get the proxy URL in their env, as a backend's transform sets it. */
function withProxyEnv(ctx: PipelineContext): void {
  const manager = ctx.sandboxManager as { prepare: PipelineContext["sandboxManager"]["prepare"] };
  const prepare = manager.prepare.bind(manager);
  manager.prepare = async (spec, policy, options) => {
    const env = await prepare(spec, policy, options);
    const route = options.networkProxy;
    return route?.transport === "loopback-tcp" ? { ...env, env: { ...env.env, HTTP_PROXY: `http://127.0.0.1:${route.httpPort}` } } : env;
  };
}

/** A launcher that runs `hosts` through the run's proxy and reports the answers. */
function fetchingLauncher(hosts: string[], answers: Array<{ status: number; body: string }>) {
  const ports: number[] = [];
  const launch = async (env: ExecEnv): Promise<LaunchResult<string>> => {
    const port = proxyPortOf(env);
    ports.push(port);
    for (const h of hosts) answers.push(await getVia(port, h));
    return { value: "done", probe: probe(0) };
  };
  return { launch, ports };
}

describe("proxy-routed runs through the pipeline", () => {
  it("a granted host is reachable, any other is refused with a readable 403, and the outcome lists it", async () => {
    const { ctx, events, manager } = makeContext({ approvalPolicy: "never" });
    withProxyEnv(ctx);
    ctx.network = network(ctx, { allow: ["registry.test"] });
    const answers: Array<{ status: number; body: string }> = [];
    const { launch, ports } = fetchingLauncher(["registry.test", "evil.test", "evil.test"], answers);
    const out = await new ExecPipeline(ctx).run(request({ argv: ["cat", "x"] }), launch);
    expect(manager.calls[0]?.options.networkProxy).toMatchObject({ transport: "loopback-tcp" });
    expect(answers[0]).toEqual({ status: 200, body: `hello from registry.test:${serverPort}` });
    expect(answers[1]?.status).toBe(403);
    expect(answers[1]?.body).toContain(`evil.test:${serverPort}`);
    expect(answers[1]?.body).toContain("no rule or grant allows this host");
    expect(answers[1]?.body).toContain("re-run with --allow-domain evil.test");
    // One refusal per host and port, however often it was tried.
    expect(out.network?.refusals()).toEqual([
      { host: "evil.test", port: serverPort, reason: "no rule or grant allows this host", hint: "re-run with --allow-domain evil.test" },
    ]);
    const requests = events.filter((e) => e.type === "network.request");
    expect(requests.map((e) => e.type === "network.request" && [e.callId, e.host, e.decision])).toEqual([
      ["call-1", "registry.test", "allow"],
      ["call-1", "evil.test", "deny"],
      ["call-1", "evil.test", "deny"],
    ]);
    // The proxy stopped with the run: its port no longer accepts connections.
    await expect(new Promise((resolve, reject) => net.connect(ports[0]!, "127.0.0.1").on("connect", resolve).on("error", reject))).rejects.toThrow();
  });

  it("without any grant or rule that could let a host through, runs keep the plain network-off sandbox", async () => {
    const { ctx, manager } = makeContext({ approvalPolicy: "never" });
    ctx.network = network(ctx, { rules: [{ host: "evil.test", protocol: "https", decision: "forbidden", source: { file: "f", line: 1, column: 1 } }] });
    const out = await new ExecPipeline(ctx).run(request({ argv: ["cat", "x"] }), async () => ({ value: "v", probe: probe(0) }));
    expect(manager.calls[0]?.options.networkProxy).toBeUndefined();
    expect(out.network).toBeUndefined();
  });

  it("fails closed, and says so, when the backend cannot route through a proxy or the proxy cannot start", async () => {
    const a = makeContext({ approvalPolicy: "never" });
    a.manager.proxyTransport = undefined;
    a.ctx.network = network(a.ctx, { allow: ["registry.test"] });
    const outA = await new ExecPipeline(a.ctx).run(request({ argv: ["cat", "x"] }), async () => ({ value: "v", probe: probe(0) }));
    expect(a.manager.calls[0]?.options.networkProxy).toBeUndefined();
    expect(outA.network?.note()).toMatch(/cannot route a command's network through the proxy, so this command ran without network/);

    const b = makeContext({ approvalPolicy: "never" });
    b.ctx.network = { ...network(b.ctx, { allow: ["registry.test"] }), startProxy: async () => Promise.reject(new Error("EMFILE")) };
    const outB = await new ExecPipeline(b.ctx).run(request({ argv: ["cat", "x"] }), async () => ({ value: "v", probe: probe(0) }));
    expect(b.manager.calls[0]?.options.networkProxy).toBeUndefined();
    expect(outB.network?.note()).toBe("the network proxy could not start (EMFILE), so this command ran without network");
  });

  it("under full network there is no proxy: --network on keeps meaning the whole network", async () => {
    const { ctx, manager } = makeContext({ approvalPolicy: "never", sandboxPolicy: { mode: "workspace-write", writableRoots: [], networkAccess: true, excludeTmpdirEnvVar: false, excludeSlashTmp: false, deniedReadPaths: [] } });
    ctx.network = network(ctx, { allow: ["registry.test"] });
    await new ExecPipeline(ctx).run(request({ argv: ["cat", "x"] }), async () => ({ value: "v", probe: probe(0) }));
    expect(manager.calls[0]?.options.networkProxy).toBeUndefined();
  });

  it("a prompt rule asks once per host in a run, and an answer for the session is not asked again", async () => {
    const { handler, requests } = scriptedHandler(["approved_for_session"]);
    const { ctx, events } = makeContext({ approvalPolicy: "on-request", approvalHandler: handler });
    withProxyEnv(ctx);
    const rule: HostRule = { host: "ask.test", protocol: "https", decision: "prompt", justification: "the mirror", source: { file: "/r/net.rules", line: 4, column: 1 } };
    ctx.network = network(ctx, { rules: [rule] });
    const answers: Array<{ status: number; body: string }> = [];
    const pipeline = new ExecPipeline(ctx);
    await pipeline.run(request({ argv: ["cat", "x"] }), fetchingLauncher(["ask.test", "ask.test", "ask.test"], answers).launch);
    await pipeline.run(request({ callId: "call-2", argv: ["cat", "y"] }), fetchingLauncher(["ask.test"], answers).launch);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      why: { kind: "network", network: { host: "ask.test", port: serverPort, protocol: "http" } },
      network: { host: "ask.test", rule: { file: "/r/net.rules", line: 4, column: 1, justification: "the mirror" } },
      offeredDecisions: ["approved", "approved_for_session", "denied", "abort"],
    });
    expect(requests[0]?.reason).toContain("wants to reach ask.test");
    // Approved by a person, not granted by name: its loopback address stays refused.
    const causes = events.flatMap((e) => (e.type === "network.request" ? [e.cause] : []));
    expect(causes).toEqual(["private-address", "private-address", "private-address", "private-address"]);
    expect(answers.every((a) => a.status === 403)).toBe(true);
  });

  it("a granted host whose address nothing opens is refused with what refused it, never with the grant already given", async () => {
    const { ctx } = makeContext({ approvalPolicy: "never" });
    withProxyEnv(ctx);
    ctx.network = { ...network(ctx, { allow: ["registry.test"] }), resolver: async () => [{ address: "255.255.255.255", family: 4 as const }] };
    const answers: Array<{ status: number; body: string }> = [];
    const out = await new ExecPipeline(ctx).run(request({ argv: ["cat", "x"] }), fetchingLauncher(["registry.test"], answers).launch);
    expect(answers[0]?.status).toBe(403);
    expect(out.network?.refusals()).toEqual([
      { host: "registry.test", port: serverPort, reason: "registry.test resolves to 255.255.255.255, a broadcast address, never reachable through the proxy" },
    ]);
  });

  it("a host approved at a prompt is allowed by name (any unicast address but loopback and link-local); a granted one also those", async () => {
    const verdicts: Record<string, unknown> = {};
    const { handler } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalPolicy: "on-request", approvalHandler: handler });
    withProxyEnv(ctx);
    const rule: HostRule = { host: "ask.test", protocol: "https", decision: "prompt", source: { file: "/r/net.rules", line: 4, column: 1 } };
    const base = network(ctx, { allow: ["registry.test"], rules: [rule] });
    ctx.network = {
      ...base,
      startProxy: async (options) => {
        for (const host of ["ask.test", "registry.test"]) verdicts[host] = await options.decide({ protocol: "https", host, port: 443 });
        return (await import("@shellgate/network-proxy")).startNetworkProxy(options);
      },
    };
    const out = await new ExecPipeline(ctx).run(request({ argv: ["cat", "x"] }), fetchingLauncher(["ask.test"], []).launch);
    expect(verdicts["ask.test"]).toMatchObject({ decision: "allow", allowNamed: true });
    expect(verdicts["ask.test"]).not.toHaveProperty("allowPrivate");
    expect(verdicts["registry.test"]).toMatchObject({ decision: "allow", allowNamed: true, allowPrivate: true });
    // The approved host's loopback address is refused, and granting it by name is what would open it.
    expect(out.network?.refusals()).toEqual([
      { host: "ask.test", port: serverPort, reason: "ask.test resolves to 127.0.0.1, a loopback address, reachable only for a host granted by name in the configuration", hint: "re-run with --allow-domain ask.test" },
    ]);
  });

  it("the denial of a proxy-routed run does not offer the grant of a host already allowed, nor say the network is off", async () => {
    const { ctx } = makeContext({ approvalPolicy: "never" });
    ctx.network = network(ctx, { allow: ["registry.test"] });
    const failed = probe(1, "npm error request to https://registry.test/ms failed, reason: getaddrinfo EAI_AGAIN registry.test\n");
    const out = await new ExecPipeline(ctx).run(request({ argv: ["npm", "install", "ms"], cwd: "/tmp" }), async () => ({ value: "v", probe: { ...failed, stderr: failed.stdout } }));
    expect(out.sandboxDenial?.grant).toMatchObject({ proxied: true, allowedHosts: ["registry.test"] });
    expect(out.sandboxDenial?.summary).not.toContain("network access is off");
    expect(out.sandboxDenial?.suggestion).not.toMatch(/allow registry\.test|--allow-domain registry\.test/);
    expect(out.sandboxDenial?.suggestion).toContain("registry.test is already allowed");
  });

  it("allowed requests go through the upstream proxy (networkUpstream); refused ones never reach it", async () => {
    const seen: string[] = [];
    const upstream = http.createServer((req, res) => {
      seen.push(req.url ?? "");
      res.end(`via upstream ${req.url ?? ""}`);
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    try {
      const { ctx } = makeContext({ approvalPolicy: "never" });
      withProxyEnv(ctx);
      const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
      ctx.network = { ...network(ctx, { allow: ["registry.test"] }), upstream: { http: { url, variable: "HTTP_PROXY" } } };
      const answers: Array<{ status: number; body: string }> = [];
      await new ExecPipeline(ctx).run(request({ argv: ["cat", "x"] }), fetchingLauncher(["registry.test", "evil.test"], answers).launch);
      expect(answers[0]).toEqual({ status: 200, body: `via upstream http://registry.test:${serverPort}/` });
      expect(answers[1]?.status).toBe(403);
      expect(seen).toEqual([`http://registry.test:${serverPort}/`]);
    } finally {
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it("an upstream the proxy cannot use leaves the run without network, naming the variable", async () => {
    const { ctx } = makeContext({ approvalPolicy: "never" });
    ctx.network = { ...network(ctx, { allow: ["registry.test"] }), upstream: { https: { url: "socks4://u:pw@proxy.example.com", variable: "HTTPS_PROXY" } } };
    const out = await new ExecPipeline(ctx).run(request({ argv: ["cat", "x"] }), async () => ({ value: "v", probe: probe(0) }));
    expect(out.network?.note()).toBe(
      "the network proxy could not start (HTTPS_PROXY=socks4://u:***@proxy.example.com: the scheme socks4:// is not supported (http://, socks5:// and socks5h:// are)), so this command ran without network",
    );
  });

  it("a prompt host nobody can be asked about is refused, with the rule named", async () => {
    const { ctx } = makeContext({ approvalPolicy: "never" });
    withProxyEnv(ctx);
    ctx.network = network(ctx, { rules: [{ host: "ask.test", protocol: "https", decision: "prompt", source: { file: "/r/net.rules", line: 2, column: 1 } }] });
    const answers: Array<{ status: number; body: string }> = [];
    const out = await new ExecPipeline(ctx).run(request({ argv: ["cat", "x"] }), fetchingLauncher(["ask.test"], answers).launch);
    expect(answers[0]?.status).toBe(403);
    expect(out.network?.refusals()[0]?.reason).toBe("needs approval by network_rule at /r/net.rules:2:1, and it was not approved");
  });

  it("a rule that carries its own sandbox keeps the command confined and grants its hosts for that run only", async () => {
    const { ctx, manager } = makeContext({
      approvalPolicy: "never",
      rules: [{ prefix: ["npm", "ci"], decision: "allow", sandbox: "workspace-write", network: ["registry.test"] }],
    });
    withProxyEnv(ctx);
    ctx.network = network(ctx);
    const answers: Array<{ status: number; body: string }> = [];
    const pipeline = new ExecPipeline(ctx);
    const out = await pipeline.run(request({ argv: ["npm", "ci"] }), fetchingLauncher(["registry.test"], answers).launch);
    expect(out.trace.sandboxOverride).toBe("rule_sandbox");
    expect(manager.calls[0]?.policy).toMatchObject({ mode: "workspace-write", networkAccess: false });
    expect(answers[0]?.status).toBe(200);
    // Another command does not get the rule's host (and without any grant, no proxy at all).
    await pipeline.run(request({ callId: "call-2", argv: ["cat", "x"] }), async () => ({ value: "v", probe: probe(0) }));
    expect(manager.calls[1]?.options.networkProxy).toBeUndefined();
  });
});

describe("the tunnel splicer", () => {
  it("is looked for when a run first starts a proxy, once per session, and handed to that proxy", async () => {
    const { ctx } = makeContext({ approvalPolicy: "never" });
    let asked = 0;
    const given: Array<string | undefined> = [];
    const { startNetworkProxy } = await import("@shellgate/network-proxy");
    ctx.network = {
      ...network(ctx, { allow: ["registry.test"] }),
      tunnelSplicer: tunnelSplicerOnce(() => {
        asked++;
        return "/opt/helper/shellgate-sandbox-helper";
      }),
      // The splicer is only run for bulk transfers; these runs make none, so the proxy starts without it.
      startProxy: async ({ tunnelSplicer, ...options }) => {
        given.push(tunnelSplicer);
        return startNetworkProxy(options);
      },
    };
    const noProxy = makeContext({ approvalPolicy: "never" });
    noProxy.ctx.network = { ...network(noProxy.ctx), tunnelSplicer: ctx.network.tunnelSplicer };
    await new ExecPipeline(noProxy.ctx).run(request({ argv: ["cat", "x"] }), async () => ({ value: "v", probe: probe(0) }));
    // No grant could let a host through: no proxy, and no one asked for the splicer.
    expect(asked).toBe(0);
    for (let i = 0; i < 2; i++) await new ExecPipeline(ctx).run(request({ argv: ["cat", "x"] }), async () => ({ value: "v", probe: probe(0) }));
    expect(given).toEqual(["/opt/helper/shellgate-sandbox-helper", "/opt/helper/shellgate-sandbox-helper"]);
    expect(asked).toBe(1);
  });

  it("takes a path as given, and refuses a function's answer that is not an absolute path", async () => {
    await expect(tunnelSplicerOnce("/usr/lib/helper")()).resolves.toBe("/usr/lib/helper");
    await expect(tunnelSplicerOnce(() => undefined)()).resolves.toBeUndefined();
    await expect(tunnelSplicerOnce(async () => "helper")()).rejects.toThrow('networkTunnelSplicer: returned "helper", not an absolute path');
    // A failure is not kept: the next proxy start asks again (and keeps a good answer).
    const answers = [new Error("EIO"), "/opt/helper/bin"];
    let asked = 0;
    const flaky = tunnelSplicerOnce(async () => {
      const answer = answers[asked++];
      if (answer instanceof Error) throw answer;
      return answer;
    });
    await expect(flaky()).rejects.toThrow("EIO");
    await expect(flaky()).resolves.toBe("/opt/helper/bin");
    await expect(flaky()).resolves.toBe("/opt/helper/bin");
    expect(asked).toBe(2);
    const { ctx } = makeContext({ approvalPolicy: "never" });
    ctx.network = { ...network(ctx, { allow: ["registry.test"] }), tunnelSplicer: tunnelSplicerOnce(() => "relative/helper") };
    const out = await new ExecPipeline(ctx).run(request({ argv: ["cat", "x"] }), async () => ({ value: "v", probe: probe(0) }));
    expect(out.network?.note()).toMatch(/the network proxy could not start \(networkTunnelSplicer: returned "relative\/helper", not an absolute path\)/);
  });
});

describe("pickSocketRoot", () => {
  it("takes the first candidate outside every writable root, and refuses when there is none", async () => {
    const { pickSocketRoot } = await import("../support/internals.js");
    const { mkdtemp, realpath, rm } = await import("node:fs/promises");
    const runtime = await realpath(await mkdtemp("/var/tmp/sg-xdg-"));
    try {
      expect(await pickSocketRoot([], { XDG_RUNTIME_DIR: runtime })).toBe(runtime);
      // The runtime dir inside a writable root is skipped for the next candidate.
      const picked = await pickSocketRoot([runtime], { XDG_RUNTIME_DIR: runtime });
      expect(picked).not.toBe(runtime);
      await expect(pickSocketRoot(["/"], { XDG_RUNTIME_DIR: runtime })).rejects.toThrow(/lies inside a writable root/);
    } finally {
      await rm(runtime, { recursive: true, force: true });
    }
  });
});
