import { escapeForDisplay } from "@shellgate/orchestrator";
import type { DoctorReport } from "./report.js";

function describePolicy(report: DoctorReport): string {
  const p = report.sandboxPolicy;
  switch (p.mode) {
    case "workspace-write":
      return `workspace-write (network ${p.networkAccess ? "on" : "off"})`;
    case "external-sandbox":
      return `external-sandbox (network ${p.networkAccess ? "on" : "off"})`;
    default:
      return p.mode;
  }
}

/** The human-readable doctor report. */
export function formatDoctorReport(r: DoctorReport): string {
  const out: string[] = [];
  const mark = (ok: boolean) => (ok ? "ok  " : "FAIL");
  out.push(`shellgate ${r.version} on ${r.platform}, node ${r.node}`);
  out.push(`cwd: ${r.cwd}`);
  out.push(`config files: ${r.configFiles.length > 0 ? r.configFiles.join(", ") : "(none; defaults)"}`);
  if (r.project) {
    out.push(
      `project config: ${r.project.file} (${r.project.trusted ? "trusted: applied as written" : "not trusted: may only make the policy stricter"})`,
    );
  }
  out.push(`approval policy: ${r.approvalPolicy}`);
  out.push(`sandbox policy: ${describePolicy(r)}`);
  out.push("");
  out.push("workspace");
  if (r.workspace.broadRoots.length === 0) {
    out.push(`  ${mark(true)} no writable directory is / or your home`);
  } else if (r.workspace.allowed) {
    const by = r.workspace.allowedBy === "flag" ? "--allow-broad-workspace" : "allow_broad_workspace = true";
    for (const b of r.workspace.broadRoots) out.push(`  note ${b.real} is writable although it is ${b.reason === "filesystem-root" ? "/" : "your home or contains it"} (allowed by ${by})`);
  } else {
    out.push(`  ${mark(false)} ${r.workspace.error ?? "the workspace is too broad"}`);
  }
  out.push("");
  out.push("shell");
  out.push(r.shell.ok ? `  ${mark(true)} ${r.shell.type} at ${r.shell.path} (${r.shell.source})` : `  ${mark(false)} ${r.shell.error}`);
  out.push("");
  out.push("sandbox backends");
  if (r.backends.length === 0) out.push("  (none registered for this platform)");
  for (const b of r.backends) {
    out.push(
      b.availability.available
        ? `  ${mark(true)} ${b.name} (${b.platform}): available, isolation ${b.availability.isolation}`
        : `  ---- ${b.name} (${b.platform}): unavailable: ${b.availability.reason}`,
    );
    if (b.availability.available) for (const note of b.availability.notes ?? []) out.push(`         note: ${note}`);
  }
  out.push("");
  out.push("configured sandbox");
  if (r.sandbox.ok) {
    out.push(`  ${mark(true)} ${r.sandbox.backend ?? "no platform sandbox"}: ${r.sandbox.isolation}`);
    for (const root of r.sandbox.writableRoots) {
      const ro = root.readOnlySubpaths.length > 0 ? ` (read-only inside: ${root.readOnlySubpaths.join(", ")})` : "";
      out.push(`       writable: ${root.root}${ro}`);
    }
  } else {
    out.push(`  ${mark(false)} ${r.sandbox.error}`);
  }
  out.push("");
  out.push("rules files");
  if (r.rules.length === 0) out.push("  (none; commands no rule matches are judged by the built-in heuristics)");
  for (const rule of r.rules) {
    out.push(`  ${mark(rule.ok)} ${rule.file} [${rule.origin}]`);
    if (rule.error) for (const line of rule.error.split("\n")) out.push(`       ${line}`);
  }
  out.push(`  "always allow" writes to ${r.userRulesFile}`);
  out.push("");
  out.push("network by domain");
  const anyDomain = r.networkRules.rules.length + r.domains.allow.length + r.domains.deny.length > 0;
  if (!anyDomain) out.push("  (no network_rule, --allow-domain or [network] entry: sandboxed commands get no network unless --network on)");
  else if (r.networkRules.effective) out.push("  enforced by shellgate's proxy for sandboxed commands (nothing else is reachable)");
  else out.push("  NOT applied under this configuration: the network is on, or the sandbox mode confines nothing");
  for (const d of r.domains.allow) out.push(`  allow ${escapeForDisplay(d.host)}  (${escapeForDisplay(d.origin)})`);
  for (const d of r.domains.deny) out.push(`  deny  ${escapeForDisplay(d.host)}  (${escapeForDisplay(d.origin)})`);
  for (const n of r.networkRules.rules) out.push(`  ${n.decision === "forbidden" ? "deny " : n.decision.padEnd(5)} ${escapeForDisplay(n.host)}  (network_rule ${n.protocol} at ${n.file}:${n.line})`);
  out.push(...upstreamLines(r.upstream));
  out.push("");
  out.push("environment (variables commands will not see; names only)");
  if (r.environment.dropped.length === 0) out.push("  (none dropped)");
  for (const d of r.environment.dropped) out.push(`  ${escapeForDisplay(d.name)}: ${d.reason}`);
  out.push("");
  out.push("sandbox tool caches (workspace-write runs write these, never the host's caches)");
  if (r.toolCaches.dir === null) out.push("  (none: no cache directory is known; sandboxed tools find the host's caches read-only)");
  else out.push(`  ${escapeForDisplay(r.toolCaches.dir)}`);
  for (const v of r.toolCaches.variables) out.push(`  ${v.tool.padEnd(6)} ${v.name}=${escapeForDisplay(v.value)}`);
  if (r.toolCaches.replaced.length > 0) {
    out.push(`  set on the host, replaced for sandboxed runs: ${r.toolCaches.replaced.map(escapeForDisplay).join(", ")}`);
  }
  out.push("");
  out.push(r.ok ? "everything needed is in place" : `${r.problems.length} problem(s):\n${r.problems.map((p) => `  - ${p}`).join("\n")}`);
  return `${out.join("\n")}\n`;
}

/** The upstream proxy lines of the network section. */
function upstreamLines(u: DoctorReport["upstream"]): string[] {
  if (!u.configured) return ["  upstream: none (no HTTPS_PROXY, HTTP_PROXY or ALL_PROXY here): allowed connections go direct"];
  const out: string[] = [];
  const one = (what: string, s: { url: string; variable: string } | undefined) =>
    out.push(`  upstream for ${what}: ${s ? `${escapeForDisplay(s.url)}  (${s.variable})` : "none, direct"}`);
  one("HTTPS and tunnels", u.tunnels);
  one("plain HTTP", u.plainHttp);
  if (u.noProxy) out.push(`  direct (${u.noProxy.variable}): ${escapeForDisplay(u.noProxy.value)}`);
  if (u.ignored.length > 0) out.push(`  ${u.noProxy?.variable ?? "NO_PROXY"} entries that match nothing (CIDR ranges are not supported): ${u.ignored.map(escapeForDisplay).join(", ")}`);
  if (u.error !== undefined) out.push(`  FAIL ${escapeForDisplay(u.error)}: proxy-routed runs get no network while it is set`);
  return out;
}
