import path from "node:path";
import { z } from "zod";
import { PROTECTED_METADATA_NAMES } from "./carve-outs.js";
import { evidenceLine, filesystemMarks, networkMarks, pythonSocketRefusal, silentLookupHost, type FilesystemMark, type RefusalErrno } from "./denial-evidence.js";
import { denialText, type DenialAudience } from "./denial-text.js";
import { InvalidDenialEvidenceError } from "./errors.js";
import { isPathWithin } from "./paths.js";
import { homeCredentialPaths, homeStartupPaths, toolHomeOf } from "./tool-homes.js";
import { policyAllowsNetwork, SandboxPolicySchema } from "./policy.js";
import { firstZodIssue } from "./zod-issues.js";
import { DEFAULT_DENIAL_SIGNALS } from "./backend.js";

const absolutePath = () =>
  z
    .string()
    .min(1, "must not be empty")
    .refine((p) => path.isAbsolute(p), { message: "must be an absolute path" });

// The object schemas here are built on first use (`z.lazy`): most runs never explain a denial, and
// building them is part of every start that loads this package (~1.5 ms of `shellgate sandbox`).

/** What one sandboxed run left behind, as `explainSandboxDenial` reads it. */
export const DenialEvidenceSchema = z.lazy(() =>
  z.strictObject({
    exitCode: z.number().int(),
    /** The signal that ended the process, when one did (`SIGSYS`). */
    signal: z.string().nullable().optional(),
    stdout: z.string(),
    stderr: z.string(),
    /** Interleaved output (a PTY session has only this). */
    aggregated: z.string().optional(),
    /** `ExecEnv.sandboxType` of the run (`"none"` when unsandboxed). */
    sandboxType: z.string().min(1),
    /** `ExecEnv.isolation` of the run (`bwrap+seccomp`, …), quoted in nothing but kept for callers' traces. */
    isolation: z.string().optional(),
    /** `ExecEnv.denialSignals` of the run: which errnos, exit codes and signals are the sandbox's refusals. */
    denialSignals: z
      .strictObject({
        exitCodes: z.array(z.number().int()).optional(),
        signals: z.array(z.string()).optional(),
        refusalErrnos: z.array(z.enum(["EROFS", "EACCES", "EPERM", "EBUSY"])).optional(),
        keywords: z.array(z.string()).optional(),
      })
      .optional(),
    policy: SandboxPolicySchema,
    /** The writable roots of the run, as `computeWritableRoots` returned them for this policy. */
    writableRoots: z.array(
      z.object({ root: absolutePath(), readOnlySubpaths: z.array(absolutePath()), pinnedAncestors: z.array(absolutePath()).optional() }),
    ),
    /** The command's working directory (canonical), against which relative paths in messages are read. */
    cwd: absolutePath(),
    /** The argv that ran, before the sandbox wrapped it; lets a silent `getent hosts NAME` be read. */
    command: z.array(z.string()).optional(),
    /** The user's home directory; a suggested writable root never becomes it or an ancestor without saying so. */
    homeDir: absolutePath().optional(),
    /**
     * The paths the run held read-only wherever they are (`TransformOptions.protectedPaths`: the
     * user's configuration and rules, shellgate's cache…): a directory inside one is never suggested
     * as a writable root, as it would stay read-only.
     */
    protectedPaths: z.array(absolutePath()).optional(),
  }),
);
export type DenialEvidence = z.input<typeof DenialEvidenceSchema>;

/** What was refused: a filesystem write, a network connection, or a system call. */
export const SandboxDenialKindSchema = z.enum(["filesystem", "network", "process"]);
export type SandboxDenialKind = z.infer<typeof SandboxDenialKindSchema>;

/**
 * Why it was refused. `outside-writable-roots`: a write outside every writable root;
 * `protected-path`: a write into a path held read-only inside a root (`.git`, `.codex`,
 * `.shellgate`, `.agents`, a rules or config path); `read-only-sandbox`: a write under the
 * `read-only` policy; `denied-read-path`: a path the policy hides; `unnamed-path`: a read-only file
 * system error whose path the tool did not print; `network-disabled`: a lookup or connection while
 * the policy keeps the network off; `seccomp`: a system call the filter refused (SIGSYS).
 */
export const SandboxDenialCauseSchema = z.enum([
  "outside-writable-roots",
  "protected-path",
  "read-only-sandbox",
  "denied-read-path",
  "unnamed-path",
  "network-disabled",
  "seccomp",
]);
export type SandboxDenialCause = z.infer<typeof SandboxDenialCauseSchema>;

/** What would let the command through, as data (the suggestion text is rendered from it). */
export const SandboxDenialGrantSchema = z.lazy(() =>
  z.strictObject({
    /** The directory to add as a writable root (nearest sensible one; never `/`). */
    writableRoot: z.string().optional(),
    /**
     * The directory is the home directory or an ancestor of it. Such a directory is never
     * suggested (see `notSuggested`); the field stays so results written by older versions still parse.
     */
    broad: z.boolean().optional(),
    /**
     * The nearest directory was not suggested as a writable root, and why: `system` (`/etc`, `/usr`,
     * `/opt`, `/var`…), `home` (the home directory or an ancestor: every tool's settings and the shell's
     * start-up files), `credentials` (a credential store such as `~/.ssh`, `~/.gnupg`, `~/.aws`, a
     * keyring, or a directory holding one), `startup` (a file the host reads at start-up: shell rc
     * files, `~/.gitconfig`, `~/.config`, or a directory holding one), `tool-code` (a part of a tool
     * home that stays read-only in every sandbox, as the host runs what is there), `protected` (inside
     * a path every run holds read-only: shellgate's or an agent's rules, configuration, cache). `dir` is the
     * directory judged, or the credential store or start-up file the path lies in.
     */
    notSuggested: z
      .strictObject({
        dir: z.string(),
        reason: z.enum(["system", "home", "credentials", "startup", "tool-code", "protected"]),
        tool: z.string().optional(),
        /** For `credentials` and `startup`: the credential store or start-up path `dir` holds, when `dir` is not one itself. */
        holds: z.string().optional(),
      })
      .optional(),
    /** The suggested root is a tool's home: which tool, and what in it stays read-only (the rest the host's tool reads as it finds it). */
    toolHome: z.strictObject({ tool: z.string(), readOnly: z.array(z.string()) }).optional(),
    /** Writes need the `workspace-write` sandbox mode instead of `read-only`. */
    workspaceWrite: z.boolean().optional(),
    /** Network access (`--network on`). */
    network: z.boolean().optional(),
    /** The run's network went through shellgate's proxy (hosts by name), not nowhere. */
    proxied: z.boolean().optional(),
    /** Hosts of the denial that were already allowed: no hint may offer their grant again. */
    allowedHosts: z.array(z.string()).optional(),
    /** Only running outside the sandbox lets it through (approval or an allow rule). */
    outsideSandboxOnly: z.boolean().optional(),
    /**
     * The policy has denied-read paths, which only a sandbox can enforce: every command stays
     * sandboxed, approved or allowed by a rule, so running it outside the sandbox is no way out.
     */
    sandboxAlwaysOn: z.boolean().optional(),
    /**
     * For a protected path: which protected name (`.git`, `.codex`, `.agents`, `.shellgate`), or what
     * a granted home holds (`credentials`, `startup`, `tool-code`), or `policy` for a rules/config path.
     */
    protectedName: z.string().optional(),
    /**
     * No one can approve a run outside the sandbox where this ran (no approver, or the approval
     * policy `never`): the way out is the user's to take, so the model is told to ask them.
     */
    noApprover: z.boolean().optional(),
  }),
);
export type SandboxDenialGrant = z.infer<typeof SandboxDenialGrantSchema>;

/** An explained sandbox denial: what was refused, why, and the way out for the audience it was written for. */
export const SandboxDenialSchema = z.lazy(() =>
  z.strictObject({
    kind: SandboxDenialKindSchema,
    cause: SandboxDenialCauseSchema,
    /** Absolute paths the sandbox refused (filesystem denials; at most 5). */
    paths: z.array(z.string()),
    /** Hosts the failed lookups or connections named (network denials; at most 5). */
    hosts: z.array(z.string()),
    /** One clause saying what was refused and why, e.g. `writing to /etc/x was refused (read-only outside the writable roots)`. */
    summary: z.string(),
    /** The way out, written for `audience`. */
    suggestion: z.string(),
    audience: z.enum(["cli", "model"]),
    grant: SandboxDenialGrantSchema,
    evidence: z.strictObject({
      exitCode: z.number().int(),
      signal: z.string().optional(),
      /** Up to three output lines the explanation rests on (each at most 240 characters). */
      lines: z.array(z.string()),
    }),
  }),
);
export type SandboxDenial = z.infer<typeof SandboxDenialSchema>;

/** Options of `explainSandboxDenial`. */
export interface ExplainOptions {
  /** Who reads the suggestion: the CLI user (flags) or the model (`sandbox_permissions`). Default `model`. */
  audience?: DenialAudience;
  /**
   * Whether a directory exists; when given, a suggested writable root that does not (node's
   * `mkdir -p` names the deepest missing directory) moves up to the nearest one that does, since a
   * writable root must exist. Without it the function stays free of I/O and assumes it does.
   */
  directoryExists?: (dir: string) => boolean;
  /**
   * Whether a person can approve running the command outside the sandbox where it ran (default
   * true). When false the denial carries `grant.noApprover`, and the model is not told to ask for
   * an escalation no one can grant.
   */
  approvalAvailable?: boolean;
  /**
   * The run's network: `proxied` when it went through shellgate's proxy, and `allowed` telling
   * which of the hosts a denial names were already allowed (their grant is never suggested again).
   */
  network?: { proxied: boolean; allowed?: (host: string) => boolean };
}

const MAX_LISTED = 5;

type Refused = { path: string; cause: "outside-writable-roots" | "protected-path" | "read-only-sandbox" | "denied-read-path"; carveOut?: string };

/**
 * Which errnos mean "the sandbox refused" in this run, as its backend said (`denialSignals`); any
 * other errno is the host's own answer. A backend that says nothing gets the broad default.
 */
function refusalErrnos(ev: z.infer<typeof DenialEvidenceSchema>): ReadonlySet<RefusalErrno> {
  return new Set(ev.denialSignals?.refusalErrnos ?? DEFAULT_DENIAL_SIGNALS.refusalErrnos);
}

function resolvePrinted(p: string, cwd: string, home: string | undefined): string {
  if (p === "~" && home) return home;
  if (p.startsWith("~/") && home) return path.resolve(home, p.slice(2));
  return path.resolve(cwd, p);
}

function classify(p: string, evidence: z.infer<typeof DenialEvidenceSchema>): Refused | undefined {
  const { policy, writableRoots } = evidence;
  if (policy.mode === "read-only" || policy.mode === "workspace-write") {
    if (policy.deniedReadPaths.some((d) => isPathWithin(p, d))) return { path: p, cause: "denied-read-path" };
  }
  const containing = writableRoots.filter((r) => isPathWithin(p, r.root));
  if (containing.length > 0) {
    for (const r of containing) {
      const carveOut = r.readOnlySubpaths.find((sub) => isPathWithin(p, sub));
      if (carveOut !== undefined) return { path: p, cause: "protected-path", carveOut };
    }
    // Writable here: whatever refused it, it was not the sandbox (a chmod-000 file, a failing test).
    return undefined;
  }
  if (policy.mode === "read-only") return { path: p, cause: "read-only-sandbox" };
  return { path: p, cause: "outside-writable-roots" };
}

/** The protected name a carve-out stands for: `.git`, `.codex`, … or `policy` for rules and config paths. */
function protectedNameOf(carveOut: string, evidence: z.infer<typeof DenialEvidenceSchema>): string {
  const base = path.basename(carveOut);
  if (PROTECTED_METADATA_NAMES.includes(base)) return base;
  // A `gitdir:` target (worktree, submodule) is git metadata too.
  if (/(?:^|\/)\.git(?:\/|$)/.test(carveOut) || evidence.writableRoots.some((r) => r.readOnlySubpaths.includes(carveOut) && /\.git$/.test(carveOut))) {
    return ".git";
  }
  // Held because a granted home holds it: a credential store, a start-up file, a tool's code.
  if (evidence.homeDir !== undefined && evidence.homeDir !== "/" && isPathWithin(carveOut, evidence.homeDir)) {
    const held = heldHomePath(carveOut, evidence.homeDir, false);
    if (held) return held.reason;
    if (toolHomeOf(carveOut, { HOME: evidence.homeDir })?.fullyReadOnly) return "tool-code";
  }
  return "policy";
}

/**
 * Top-level system directories: never suggested as writable roots (a root there hands the sandbox
 * what every process on the machine reads or runs).
 */
const SYSTEM_DIRS: readonly string[] = Object.freeze([
  "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/dev", "/proc", "/sys", "/run",
  "/var", "/opt", "/srv", "/root", "/snap", "/nix", "/System", "/Library", "/Applications", "/private", "/Volumes", "/cores",
]);

/** Shared temporary directories below the system ones: a directory inside them may be suggested. */
const TEMP_DIRS: readonly string[] = Object.freeze(["/var/tmp", "/var/folders", "/private/tmp", "/private/var/tmp", "/private/var/folders"]);

/**
 * Below the home directory, besides the credential stores and start-up files of `tool-homes.ts`:
 * the directory of every tool's settings, so a root there would hand over all of them.
 */
const SETTINGS_HOME_NAMES: readonly string[] = Object.freeze([".config"]);

/** The credential store or start-up path below `homeDir` that `p` is, lies in or (`containing`) holds; with the reason it is never suggested. */
function heldHomePath(p: string, homeDir: string, containing: boolean): { dir: string; reason: "credentials" | "startup"; holds?: string } | undefined {
  const related = (held: string) => isPathWithin(p, held) || (containing && isPathWithin(held, p));
  const platform = process.platform === "win32" ? "linux" : process.platform;
  const startup = [...homeStartupPaths(homeDir).map((s) => s.path), ...SETTINGS_HOME_NAMES.map((n) => path.join(homeDir, n))];
  for (const [reason, held] of [["credentials", homeCredentialPaths(homeDir, platform).map((c) => c.path).find(related)], ["startup", startup.find(related)]] as const) {
    if (held === undefined) continue;
    return isPathWithin(p, held) ? { dir: held, reason } : { dir: p, reason, holds: held };
  }
  return undefined;
}

/** Directories under home that hold one directory per tool: a suggestion goes one level deeper, to the tool's own. */
const PER_TOOL_BASES: readonly string[] = Object.freeze([".cache", ".config", ".local/share", ".local/state", "Library/Caches", "Library/Application Support"]);

/**
 * The nearest sensible directory to make writable for `p`: below the home directory, the first
 * directory under it (`~/.npm` for `~/.npm/_cacache/x`), or under a per-tool base such as `~/.cache`
 * the tool's own directory there, since tools keep one directory each; elsewhere the directory that
 * holds `p`. With `directoryExists`, a missing one moves up to the nearest existing directory. Always
 * a directory that holds `p`, never `p` itself (`--writable-root` takes directories only). Never
 * suggested, with the reason in `notSuggested`: `/`; a system directory (`/etc`, `/usr`, `/opt`,
 * `/var` but for directories inside its temporary ones…); the home directory or an ancestor of it;
 * a credential store (`homeCredentialPaths`), a start-up file or the settings directory `~/.config`,
 * or a directory holding one (`dir` is then the held path `p` lies in, when it lies in one); a part
 * of a tool home that stays read-only anyway; a directory inside one of `protectedPaths` (the held
 * path is `dir` then). A tool home (`~/.npm`, `~/.cargo`) is suggested with
 * what stays read-only in it (`toolHome`).
 */
export function suggestWritableRoot(
  p: string,
  homeDir: string | undefined,
  directoryExists?: (dir: string) => boolean,
  protectedPaths: readonly string[] = [],
): Pick<SandboxDenialGrant, "writableRoot" | "notSuggested" | "toolHome"> {
  let dir = path.dirname(p);
  const underHome = homeDir !== undefined && homeDir !== "/" && isPathWithin(p, homeDir) && p !== homeDir;
  if (underHome) {
    // `~/.bashrc`, `~/.ssh/config`: named as what they are, not as "in the home directory".
    const held = heldHomePath(p, homeDir, false);
    if (held) return { notSuggested: held };
    const parts = path.relative(homeDir, p).split(path.sep);
    const base = PER_TOOL_BASES.find((b) => parts.slice(0, b.split("/").length).join("/") === b);
    const depth = base === undefined ? 1 : base.split("/").length + 1;
    // Only a strict ancestor of `p`: the path itself may be a file.
    dir = parts.length > depth ? path.join(homeDir, ...parts.slice(0, depth)) : path.dirname(p);
  }
  while (directoryExists && dir !== path.parse(dir).root && !directoryExists(dir)) dir = path.dirname(dir);
  if (dir === path.parse(dir).root) return {};
  const inTemp = TEMP_DIRS.some((t) => dir !== t && isPathWithin(dir, t));
  if (!inTemp && SYSTEM_DIRS.some((s) => isPathWithin(dir, s))) return { notSuggested: { dir, reason: "system" } };
  if (homeDir !== undefined && isPathWithin(homeDir, dir)) return { notSuggested: { dir, reason: "home" } };
  // Held for every run: a root there would stay read-only (a root that only contains one is fine,
  // the held path is carved out of it).
  const held = protectedPaths.find((h) => isPathWithin(dir, h));
  if (held !== undefined) return { notSuggested: { dir: held, reason: "protected" } };
  if (homeDir !== undefined && underHome) {
    const held = heldHomePath(dir, homeDir, true);
    if (held) return { notSuggested: held };
    const tool = toolHomeOf(dir, { HOME: homeDir }, process.platform === "win32" ? "linux" : process.platform);
    if (tool?.fullyReadOnly) return { notSuggested: { dir, reason: "tool-code", tool: tool.tool } };
    if (tool && tool.home === dir) return { writableRoot: dir, toolHome: { tool: tool.tool, readOnly: tool.readOnly } };
  }
  return { writableRoot: dir };
}

/** Parse the evidence, naming the offending field. */
function parseEvidence(input: unknown): z.infer<typeof DenialEvidenceSchema> {
  const result = DenialEvidenceSchema.safeParse(input);
  if (!result.success) {
    const { field, message } = firstZodIssue(result.error, "(evidence)");
    throw new InvalidDenialEvidenceError(field, message, { cause: result.error });
  }
  return result.data;
}

function filesystemDenial(
  ev: z.infer<typeof DenialEvidenceSchema>,
  marks: FilesystemMark[],
  directoryExists: ExplainOptions["directoryExists"],
): Omit<SandboxDenial, "summary" | "suggestion" | "audience"> | undefined {
  const errnos = refusalErrnos(ev);
  const refused: Refused[] = [];
  const lines: string[] = [];
  for (const mark of marks) {
    if (!errnos.has(mark.errno)) continue;
    let used = false;
    for (const printed of mark.paths) {
      const r = classify(resolvePrinted(printed, ev.cwd, ev.homeDir), ev);
      if (!r) continue;
      // A busy mount point is the sandbox's only where it holds a protected name.
      if (mark.errno === "EBUSY" && r.cause !== "protected-path") continue;
      used = true;
      if (!refused.some((x) => x.path === r.path)) refused.push(r);
    }
    if (used) lines.push(mark.line);
  }
  if (refused.length > 0) {
    // One denial, one cause: the first refused path decides, and the others of that cause come along.
    const first = refused[0]!;
    const same = refused.filter((r) => r.cause === first.cause && (first.cause !== "protected-path" || r.carveOut === first.carveOut));
    const grant: SandboxDenialGrant = {};
    if (first.cause === "outside-writable-roots" || first.cause === "read-only-sandbox") {
      Object.assign(grant, suggestWritableRoot(first.path, ev.homeDir, directoryExists, ev.protectedPaths));
      if (first.cause === "read-only-sandbox") {
        grant.workspaceWrite = true;
        // Inside the workspace, workspace-write alone is enough.
        if (isPathWithin(first.path, ev.cwd)) {
          delete grant.writableRoot;
          delete grant.notSuggested;
          delete grant.toolHome;
        }
      }
    } else if (first.cause === "protected-path") {
      grant.outsideSandboxOnly = true;
      grant.protectedName = protectedNameOf(first.carveOut!, ev);
    }
    return {
      kind: "filesystem",
      cause: first.cause,
      paths: same.slice(0, MAX_LISTED).map((r) => r.path),
      hosts: [],
      grant,
      evidence: evidenceOf(ev, lines),
    };
  }
  // A read-only file system error that names no path is still the sandbox's: nothing else in a
  // sandboxed run is mounted read-only. Which directory it was is unknown, so no root is suggested.
  const unnamed = marks.filter((m) => m.errno === "EROFS" && m.paths.length === 0);
  if (unnamed.length > 0) {
    return { kind: "filesystem", cause: "unnamed-path", paths: [], hosts: [], grant: {}, evidence: evidenceOf(ev, unnamed.map((m) => m.line)) };
  }
  return undefined;
}

function evidenceOf(ev: z.infer<typeof DenialEvidenceSchema>, lines: readonly string[]): SandboxDenial["evidence"] {
  return {
    exitCode: ev.exitCode,
    ...(ev.signal ? { signal: ev.signal } : {}),
    lines: lines.slice(0, 3).map(evidenceLine),
  };
}

/**
 * Explain why a failed sandboxed run failed, when its own evidence shows the sandbox refused
 * something; `undefined` otherwise. Pure: it reads only its input (no files, no processes).
 *
 * The evidence it accepts, in this order:
 * 1. paths printed next to a refusal errno (EROFS under bwrap, and EBUSY for a protected name it
 *    holds with a mount point; EACCES/EPERM too under Landlock,
 *    Seatbelt and Windows), resolved against `cwd`, that the policy does not let the command write:
 *    outside every writable root, inside a read-only carve-out, under the `read-only` policy, or
 *    inside a denied-read path. A path the policy lets it write is never blamed on the sandbox;
 * 2. resolver and connect errors, a Python traceback ending in EPERM from a socket call, or a
 *    silent `getent hosts NAME` exiting 2, while the policy keeps the network off;
 * 3. death by a signal or exit code the run's backend names as its own (`denialSignals`: the
 *    Linux backend's seccomp SIGSYS, exit 159 through a shell);
 * 4. a read-only file system error that names no path.
 * Nothing is explained for an unsandboxed run or a successful one.
 * @throws InvalidDenialEvidenceError naming the offending field when the input is malformed.
 */
export function explainSandboxDenial(input: DenialEvidence, options: ExplainOptions = {}): SandboxDenial | undefined {
  const ev = parseEvidence(input);
  const audience = options.audience ?? "model";
  if (ev.sandboxType === "none" || (ev.exitCode === 0 && !ev.signal)) return undefined;
  if (ev.policy.mode === "danger-full-access" || ev.policy.mode === "external-sandbox") return undefined;
  // The interleaved stream repeats stdout and stderr; it is read only when it is all there is (a PTY).
  const texts = ev.stdout !== "" || ev.stderr !== "" ? [ev.stderr, ev.stdout] : [ev.aggregated ?? ""];
  const found = filesystemDenial(ev, filesystemMarks(texts), options.directoryExists) ?? networkDenial(ev, texts, options.network) ?? processDenial(ev);
  if (!found) return undefined;
  if ((ev.policy.mode === "read-only" || ev.policy.mode === "workspace-write") && ev.policy.deniedReadPaths.length > 0) {
    found.grant.sandboxAlwaysOn = true;
  }
  if (options.approvalAvailable === false) found.grant.noApprover = true;
  return withText(found, audience, ev.command);
}

function networkDenial(
  ev: z.infer<typeof DenialEvidenceSchema>,
  texts: string[],
  network: ExplainOptions["network"],
): Omit<SandboxDenial, "summary" | "suggestion" | "audience"> | undefined {
  if (policyAllowsNetwork(ev.policy)) return undefined;
  const marks = networkMarks(texts);
  const hosts = [...new Set(marks.flatMap((m) => m.hosts))];
  const lines = marks.map((m) => m.line);
  if (marks.length === 0) {
    const pySocket = pythonSocketRefusal(texts);
    const host = ev.exitCode === 2 && ev.stdout.trim() === "" ? silentLookupHost(ev.command) : undefined;
    if (pySocket !== undefined) lines.push(pySocket);
    else if (host !== undefined) {
      hosts.push(host);
      lines.push(`getent hosts ${host}: exit 2, no answer`);
    } else return undefined;
  }
  return {
    kind: "network",
    cause: "network-disabled",
    paths: [],
    hosts: hosts.slice(0, MAX_LISTED),
    grant: { network: true, ...networkGrantFacts(hosts.slice(0, MAX_LISTED), network) },
    evidence: evidenceOf(ev, lines),
  };
}

function networkGrantFacts(hosts: readonly string[], network: ExplainOptions["network"]): { proxied?: true; allowedHosts?: string[] } {
  if (network?.proxied !== true) return {};
  const allowed = hosts.filter((h) => {
    try {
      return network.allowed?.(h) === true;
    } catch {
      return false;
    }
  });
  return { proxied: true, ...(allowed.length > 0 ? { allowedHosts: allowed } : {}) };
}

function processDenial(ev: z.infer<typeof DenialEvidenceSchema>): Omit<SandboxDenial, "summary" | "suggestion" | "audience"> | undefined {
  // Only what the backend names as its own kills: a SIGSYS under a backend without a seccomp filter
  // is the program's own business.
  const signals = ev.denialSignals ?? DEFAULT_DENIAL_SIGNALS;
  const killed = (ev.signal != null && (signals.signals ?? []).includes(ev.signal)) || (signals.exitCodes ?? []).includes(ev.exitCode);
  if (!killed) return undefined;
  const lines: string[] = [];
  const bad = /bad system call/i;
  for (const t of [ev.stderr, ev.stdout, ev.aggregated ?? ""]) {
    const line = t.split("\n").find((l) => bad.test(l));
    if (line) {
      lines.push(line);
      break;
    }
  }
  return { kind: "process", cause: "seccomp", paths: [], hosts: [], grant: { outsideSandboxOnly: true }, evidence: evidenceOf(ev, lines) };
}

function withText(
  denial: Omit<SandboxDenial, "summary" | "suggestion" | "audience">,
  audience: DenialAudience,
  command: readonly string[] | undefined,
): SandboxDenial {
  const { summary, suggestion } = denialText(denial, audience, command);
  return { ...denial, summary, suggestion, audience };
}

/**
 * The same denial with its suggestion written for another audience (e.g. the orchestrator wrote it
 * for the model and the CLI shows it to a person). `command` names the argv, for the allow-rule example.
 */
export function denialForAudience(denial: SandboxDenial, audience: DenialAudience, command?: readonly string[]): SandboxDenial {
  if (denial.audience === audience) return denial;
  return withText(denial, audience, command);
}

/** The one line shellgate adds to a command's output: `[shellgate] sandbox: <summary>; <suggestion>`. */
export function sandboxDenialNote(denial: Pick<SandboxDenial, "summary" | "suggestion">): string {
  return `[shellgate] sandbox: ${denial.summary}; ${denial.suggestion}`;
}
