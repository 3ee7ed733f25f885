import type { SandboxDenial } from "./denial-explain.js";
import { SANDBOX_TOOL_CACHES } from "./tool-caches.js";

/** Who reads a denial's suggestion: a person at the CLI (flags) or the model (tool arguments). */
export type DenialAudience = "cli" | "model";

type DenialData = Pick<SandboxDenial, "kind" | "cause" | "paths" | "hosts" | "grant">;

const ESCALATE_MODEL =
  'call again with sandbox_permissions: "require_escalated" and a justification, so a person can approve running it outside the sandbox';

function list(items: readonly string[]): string {
  return items.length <= 2 ? items.join(" and ") : `${items.slice(0, 2).join(", ")} and ${items.length - 2} more`;
}

/**
 * The allow rule that would let this git command run outside the sandbox: `git <subcommand>`;
 * undefined when the command is not git (a rule for `git commit` would not let it through).
 */
function gitRulePattern(command: readonly string[] | undefined): string[] | undefined {
  let words = command ? [...command] : [];
  // `bash -lc "git commit -m x"`: the script's own words.
  if (words.length === 3 && /^-l?c$/.test(words[1]!)) words = words[2]!.trim().split(/\s+/);
  const base = (s: string) => s.slice(s.lastIndexOf("/") + 1);
  if (words.length === 0) return ["git", "commit"];
  if (base(words[0]!) !== "git") return undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === "-c" || w === "-C" || w === "--git-dir" || w === "--work-tree") i++;
    else if (!w.startsWith("-")) return ["git", w];
  }
  return ["git", "commit"];
}

function ruleExample(pattern: readonly string[]): string {
  return `prefix_rule(pattern=[${pattern.map((w) => JSON.stringify(w)).join(", ")}], decision="allow")`;
}

/**
 * What a protected name holds and why a sandboxed command may not write it: the harm is always
 * code or settings that something runs later, outside the sandbox.
 */
const PROTECTED: Record<string, { what: string; why: string }> = {
  ".git": {
    what: "git's hooks and configuration",
    why: "a hook or setting a sandboxed command planted there would run later, outside the sandbox, on your next git command",
  },
  ".codex": {
    what: "Codex's configuration and rules",
    why: "a sandboxed command could write settings or rules there that loosen the sandbox or the approvals of later commands",
  },
  ".agents": {
    what: "agents' skills and instructions",
    why: "a sandboxed command could plant instructions or scripts there that an agent follows or runs later, outside the sandbox",
  },
  ".shellgate": {
    what: "shellgate's project configuration and rules",
    why: "a sandboxed command could write rules there that let later commands run outside the sandbox",
  },
  credentials: {
    what: "credentials (keys, tokens, passwords)",
    why: "a sandboxed command could replace them or add its own (an authorized ssh key, a credential helper), even where the rest of the home is writable",
  },
  startup: {
    what: "what your shell or the host's tools read at start-up",
    why: "a sandboxed command could add commands there that run later, outside the sandbox",
  },
  "tool-code": {
    what: "a tool's programs or code that the host runs",
    why: "whatever a sandboxed command put there would run later, outside the sandbox",
  },
  policy: {
    what: "shellgate's rules or configuration",
    why: "a command must not change how later commands are judged",
  },
};

function protectedOf(name: string): { what: string; why: string } {
  return PROTECTED[name] ?? PROTECTED["policy"]!;
}

/** Held because a granted home holds it, not by name: "X is …" reads better than ".ssh holds …". */
const HOME_HELD: readonly string[] = ["credentials", "startup", "tool-code"];

function summaryOf(d: DenialData): string {
  const paths = list(d.paths);
  switch (d.cause) {
    case "outside-writable-roots":
      return `writing to ${paths} was refused (read-only: outside the writable roots)`;
    case "protected-path": {
      const name = d.grant.protectedName ?? "policy";
      if (name === "credentials") return `writing to ${paths} was refused (a credential store, read-only in every sandbox)`;
      if (name === "startup") return `writing to ${paths} was refused (a start-up file, read-only in every sandbox)`;
      if (name === "tool-code") return `writing to ${paths} was refused (a tool's code, read-only in every sandbox)`;
      return name === "policy"
        ? `writing to ${paths} was refused (a protected path, read-only in the sandbox by design)`
        : `writing to ${paths} was refused (${name} is read-only in the sandbox by design)`;
    }
    case "read-only-sandbox":
      return `writing to ${paths} was refused (the sandbox is read-only)`;
    case "denied-read-path":
      return `access to ${paths} was refused (hidden by the policy's denied-read paths)`;
    case "unnamed-path":
      return "a write was refused (read-only file system; the command did not say where)";
    case "network-disabled":
      if (d.grant.proxied === true) return proxiedSummary(d);
      return d.hosts.length > 0
        ? `network access is off (${list(d.hosts)} could not be reached)`
        : "network access is off (a lookup or connection failed)";
    case "seccomp":
      return "a system call was refused by the sandbox's seccomp filter (the process was killed with SIGSYS)";
  }
}

/** Under denied-read paths every command stays sandboxed, approved or allowed by a rule: say so instead. */
const ALWAYS_SANDBOXED =
  "no approval or allow rule can run it outside the sandbox here: the policy's denied-read paths keep every command sandboxed";

/**
 * The ways to run a command outside the sandbox, for a person at the CLI: an allow rule (for git,
 * the command's own `git <subcommand>`), `--escalate` and an approval, or full access.
 */
function outsideWays(d: DenialData, command: readonly string[] | undefined, escalate: string): string {
  // A write into .git is git's (`git commit` when the command is unknown); elsewhere only the
  // command's own words may name a git rule.
  const gitWrite = d.cause === "protected-path" && d.grant.protectedName === ".git";
  const pattern = gitWrite || (command !== undefined && d.cause !== "protected-path") ? gitRulePattern(command) : undefined;
  const rule = pattern ? ruleExample(pattern) : 'prefix_rule(pattern=[...], decision="allow")';
  return `allow it with a rule such as ${rule} in your rules file, ${escalate}, or re-run with --sandbox danger-full-access`;
}

function cliSuggestion(d: DenialData, command: readonly string[] | undefined): string {
  const pinned = d.grant.sandboxAlwaysOn === true;
  // Where no one could approve this run (no terminal, or the approval policy never), say what an
  // escalation needs rather than offering one that would be refused.
  const escalate = d.grant.noApprover === true
    ? "re-run with --escalate at a terminal, under an approval policy other than never, and approve it"
    : "re-run with --escalate and approve it";
  const orEscalate = pinned ? "" : `, or ${escalate} to run it outside the sandbox`;
  switch (d.cause) {
    case "outside-writable-roots":
    case "read-only-sandbox": {
      const { writableRoot, workspaceWrite, notSuggested, toolHome } = d.grant;
      const mode = workspaceWrite ? " --sandbox workspace-write" : "";
      const first = d.paths[0];
      if (writableRoot === undefined) {
        // Under read-only, a path in the workspace needs only the mode (the explainer leaves the root out then).
        if (workspaceWrite && first !== undefined && parentOf(first) !== "/" && notSuggested === undefined) return `re-run with${mode} to let it write in the workspace`;
        const why = notSuggested
          ? notSuggestedText(first ?? "it", notSuggested)
          : `${first ?? "it"} lies directly under /, which cannot be a writable root`;
        // No safe writable root: no flag that grants one, and the ways that remain.
        return pinned ? `${why}: write somewhere else; ${ALWAYS_SANDBOXED}` : `${why}: write somewhere else, or run the command outside the sandbox: ${outsideWays(d, command, escalate)}`;
      }
      if (toolHome) {
        const kept = toolHome.readOnly.length > 0 ? `; ${toolHome.readOnly.join(", ")} stay read-only, as the host runs what is there` : "";
        return (
          `re-run with${mode} --writable-root ${writableRoot} to allow writes there (${toolHome.tool}'s home: ` +
          `the host's ${toolHome.tool} uses what a sandboxed command leaves there${kept})`
        );
      }
      return `re-run with${mode} --writable-root ${writableRoot} to allow writes there`;
    }
    case "protected-path": {
      const name = d.grant.protectedName ?? "policy";
      const { what, why } = protectedOf(name);
      const holds = HOME_HELD.includes(name) ? `it holds ${what}` : name === "policy" ? `it holds ${what}` : `${name} holds ${what}`;
      const elsewhere = HOME_HELD.includes(name) ? "write somewhere else, or " : "";
      if (pinned) return `${holds}: ${why}, and --writable-root cannot change that; ${ALWAYS_SANDBOXED}`;
      return `${holds}: ${why}, and --writable-root cannot change that; ${elsewhere}run the command outside the sandbox instead: ${outsideWays(d, command, escalate)}`;
    }
    case "denied-read-path":
      return "the configuration hides it on purpose; no flag or approval lifts that, only a change to the denied-read paths";
    case "unnamed-path":
      return `find the directory it writes to and re-run with --writable-root DIR${orEscalate}`;
    case "network-disabled": {
      const already = alreadyAllowed(d);
      if (already) return `${already}; or re-run with --network on (the whole network)${orEscalate}`;
      // The host's loopback is not reachable through the proxy's route (a sandboxed command's own
      // loopback is its own), so only the whole network reaches it.
      const remote = notYetAllowed(d).filter((h) => !isLoopbackName(h));
      if (d.hosts.length > 0 && remote.length === 0) return `re-run with --network on (the host's own loopback is outside the sandbox's network)${orEscalate}`;
      const hosts = remote.length > 0 ? remote.map((h) => `--allow-domain ${h}`).join(" ") : "--allow-domain HOST";
      return `re-run with ${hosts} (only that host, through shellgate's network proxy) or with --network on (the whole network)${orEscalate}`;
    }
    case "seccomp":
      return pinned ? `no flag lifts the filter, and ${ALWAYS_SANDBOXED}` : `no flag lifts the filter; allow the command with a rule${orEscalate}`;
  }
}

// In a proxy-routed run the network is not off: only hosts by name go through, and a host that is
// allowed can still fail (an address nothing opens, a failed lookup, the destination itself).
function proxiedSummary(d: DenialData): string {
  if (d.hosts.length === 0) return "a lookup or connection through shellgate's network proxy failed (only allowed hosts go through)";
  const allowed = d.grant.allowedHosts ?? [];
  if (allowed.length === d.hosts.length) return `${list(d.hosts)} could not be reached through shellgate's network proxy, although ${d.hosts.length === 1 ? "it is" : "they are"} allowed`;
  return `${list(d.hosts)} could not be reached (the network goes through shellgate's proxy, which lets only allowed hosts through)`;
}

/** The hosts of a network denial not allowed yet: the only ones a grant is suggested for. */
function notYetAllowed(d: DenialData): string[] {
  const allowed = new Set((d.grant.allowedHosts ?? []).map((h) => h.toLowerCase()));
  return d.hosts.filter((h) => !allowed.has(h.toLowerCase()));
}

/** When every host the denial names is already allowed: what to look at instead of a grant. */
function alreadyAllowed(d: DenialData, cli = true): string | undefined {
  if ((d.grant.allowedHosts ?? []).length === 0 || notYetAllowed(d).length > 0) return undefined;
  const hosts = list(d.grant.allowedHosts ?? []);
  return `${hosts} ${(d.grant.allowedHosts ?? []).length === 1 ? "is" : "are"} already allowed, so another grant would not help: the proxy's refusal in the output says what refused it${cli ? `, and \`shellgate check --host ${(d.grant.allowedHosts ?? [])[0]}\` shows the addresses a run would reach` : ""}`;
}

function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\./.test(h);
}

function parentOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

type NotSuggested = NonNullable<SandboxDenial["grant"]["notSuggested"]>;

/** Why no writable root is offered for `first`: a clause naming the directory judged and what it is. */
function notSuggestedText(first: string, ns: NotSuggested): string {
  const where = first === ns.dir ? `${first} is` : `${first} lies in ${ns.dir},`;
  switch (ns.reason) {
    case "system":
      return `${first} lies in ${ns.dir}, a system directory, which is not made writable for a sandboxed command`;
    case "home":
      return `${first} lies in ${ns.dir}, which holds your home directory: making it writable would hand a sandboxed command your shell's start-up files and every tool's settings`;
    case "credentials":
      return `${where} ${ns.holds !== undefined ? `which holds ${ns.holds}, ` : ""}a credential store (keys, tokens, passwords), never made writable for a sandboxed command`;
    case "startup":
      return (
        `${where} ${ns.holds !== undefined ? `which holds ${ns.holds}, ` : ""}read at start-up by your shell or the host's tools (shell rc files, git and other settings), ` +
        "never made writable for a sandboxed command: commands added there would run later, outside the sandbox"
      );
    case "protected":
      return `${first} lies in ${ns.dir}, which every sandbox holds read-only (shellgate's or an agent's rules, configuration or cache: a command must not change how later commands are judged)`;
    case "tool-code": {
      const tool = ns.tool;
      const own = tool !== undefined && SANDBOX_TOOL_CACHES.some((c) => c.tool === tool) ? `; sandboxed ${tool} has a cache of its own (shellgate doctor shows where)` : "";
      return `${first} lies in ${ns.dir}, part of ${tool ?? "a tool"}'s home that the host runs or builds from, which stays read-only in every sandbox${own}`;
    }
  }
}

const NO_APPROVER = "no one can approve running it outside the sandbox here";

/**
 * Why no way inside the sandbox exists, as a clause ending in "; " (empty when there is a way
 * inside): the model is told what the path is, so it does not try another route to the same place.
 */
function modelWhy(d: DenialData): string {
  if (d.cause === "protected-path") {
    const name = d.grant.protectedName ?? "policy";
    const { what, why } = protectedOf(name);
    const thing = HOME_HELD.includes(name) || name === "policy" ? "this path" : name;
    return `${thing} holds ${what} and stays read-only inside the sandbox: ${why}; `;
  }
  if ((d.cause === "outside-writable-roots" || d.cause === "read-only-sandbox") && d.grant.notSuggested && d.grant.writableRoot === undefined) {
    return `no writable root can be granted for it: ${notSuggestedText(d.paths[0] ?? "it", d.grant.notSuggested)}; `;
  }
  return "";
}

function modelSuggestion(d: DenialData, command: readonly string[] | undefined): string {
  const pinned = d.grant.sandboxAlwaysOn === true;
  if ((pinned || d.grant.noApprover === true) && d.cause !== "denied-read-path") {
    const ask =
      d.cause === "network-disabled"
        ? alreadyAllowed(d, false) ?? `ask the user to allow ${notYetAllowed(d).length > 0 ? list(notYetAllowed(d)) : "the hosts it needs"} (or to turn network access on)`
        : d.grant.writableRoot
          ? `ask the user to add ${d.grant.writableRoot} as a writable root`
          : !pinned && (d.cause === "protected-path" || d.cause === "seccomp")
            ? "ask the user to run it themselves or to allow it with a rule"
            : "ask the user";
    return `${modelWhy(d)}${pinned ? ALWAYS_SANDBOXED : NO_APPROVER}; if the task needs it, ${ask}`;
  }
  switch (d.cause) {
    case "outside-writable-roots":
      if (d.grant.notSuggested) return `${modelWhy(d)}write somewhere else, or if the task needs it, ${ESCALATE_MODEL}`;
      return `if the task needs it, ${ESCALATE_MODEL}${d.grant.writableRoot ? ` (or ask the user to add ${d.grant.writableRoot} as a writable root)` : ""}`;
    case "read-only-sandbox":
      return `if the task needs to write, ${ESCALATE_MODEL} (or ask the user for the workspace-write sandbox)`;
    case "protected-path": {
      const name = d.grant.protectedName ?? "policy";
      const pattern = name === ".git" ? gitRulePattern(command) : undefined;
      const rule = pattern ? `; the user can also allow it with a rule such as ${ruleExample(pattern)}` : "";
      const elsewhere = HOME_HELD.includes(name) ? "write somewhere else, or " : "";
      return `${modelWhy(d)}${elsewhere}if the task needs it, ${ESCALATE_MODEL}${rule}`;
    }
    case "denied-read-path":
      return "the user's configuration hides this path on purpose; do not work around it, ask the user if you need it";
    case "unnamed-path":
      return `if the task needs it, ${ESCALATE_MODEL}`;
    case "network-disabled": {
      const already = alreadyAllowed(d, false);
      if (already) return `${already}; if the task needs it, ${ESCALATE_MODEL}`;
      const hosts = notYetAllowed(d);
      return `if the task needs the network, ${ESCALATE_MODEL} (or ask the user to allow ${hosts.length > 0 ? list(hosts) : "the hosts it needs"}, or to turn network access on)`;
    }
    case "seccomp":
      return `if the task needs it, ${ESCALATE_MODEL}`;
  }
}

/** The summary clause and the suggestion of a denial, for `audience`. */
export function denialText(d: DenialData, audience: DenialAudience, command?: readonly string[]): { summary: string; suggestion: string } {
  return { summary: summaryOf(d), suggestion: audience === "cli" ? cliSuggestion(d, command) : modelSuggestion(d, command) };
}
