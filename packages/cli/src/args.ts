import { parseArgs, type ParseArgsConfig } from "node:util";
import { ApprovalPolicyNameSchema, PROCESS_LIMIT_MAX, PROCESS_LIMIT_MIN, SandboxModeNameSchema, type ProcessLimitSetting } from "./config/names.js";
import type { ConfigOverrides } from "./config/load.js";
import { UsageError } from "./errors.js";
import { parseNetwork, splitCommandLine } from "./options.js";

export { CONFIG_OPTIONS } from "./options.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The result of {@link parseCommandArgs}: option values and the command. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  /** The command: the words after `--`, else from the first word that is not an option (empty: none). */
  command: string[];
  /** Whether the command was introduced by `--`. */
  hadTerminator: boolean;
}

/** The flags of an option table that take the next argument as their value. */
function valueFlagsOf(options: Options): Set<string> {
  const flags = new Set<string>();
  for (const [name, o] of Object.entries(options)) {
    if (o.type !== "string") continue;
    flags.add(`--${name}`);
    if (o.short) flags.add(`-${o.short}`);
  }
  return flags;
}

/**
 * Parse one command's arguments strictly. shellgate's options come first; the command starts after `--`
 * or at the first word that is not an option (see `splitCommandLine`), so `exec ls -la` runs `ls -la`.
 * `--network` alone means on, `--no-network` off (see `splitCommandLine`).
 * @throws UsageError naming the flag for unknown options or missing values, and for a command given to
 * a command that takes none (`allowCommand` false).
 */
export function parseCommandArgs(args: string[], options: Options, allowCommand = true): ParsedArgs {
  const shortAliases: Options = {};
  if ("rules" in options) shortAliases["rules"] = { ...options["rules"]!, short: "r" };
  if ("help" in options) shortAliases["help"] = { ...options["help"]!, short: "h" };
  const all = { ...options, ...shortAliases };
  const split = splitCommandLine(args, valueFlagsOf(all));
  let parsed;
  try {
    parsed = parseArgs({ args: split.own, options: all, allowPositionals: false, strict: true });
  } catch (error) {
    throw new UsageError(cleanParseError((error as Error).message), { cause: error });
  }
  if (!allowCommand && (split.command.length > 0 || split.terminator)) {
    throw new UsageError(`unexpected argument ${JSON.stringify(split.terminator ? "--" : split.command[0])}: this command takes options only`);
  }
  return { values: parsed.values as ParsedArgs["values"], command: split.command, hadTerminator: split.terminator };
}

function cleanParseError(message: string): string {
  // node:util phrases errors for library users ("To specify a positional argument starting with a '-'...");
  // keep the first sentence, which names the option.
  const first = message.split(/\. (?=To |Did )/)[0] ?? message;
  return first.replace(/^Unknown option '([^']+)'$/, "unknown option $1");
}

/** Read the shared configuration flags into overrides. */
export function configOverrides(values: ParsedArgs["values"]): ConfigOverrides {
  const overrides: ConfigOverrides = {};
  const str = (name: string) => values[name] as string | undefined;
  const list = (name: string) => values[name] as string[] | undefined;
  const approval = str("approval-policy");
  if (approval !== undefined) {
    const r = ApprovalPolicyNameSchema.safeParse(approval);
    if (!r.success) throw new UsageError(`--approval-policy: expected one of ${ApprovalPolicyNameSchema.options.join(", ")}, got ${JSON.stringify(approval)}`);
    overrides.approvalPolicy = r.data;
  }
  const sandbox = str("sandbox");
  if (sandbox !== undefined) {
    const r = SandboxModeNameSchema.safeParse(sandbox);
    if (!r.success) throw new UsageError(`--sandbox: expected one of ${SandboxModeNameSchema.options.join(", ")}, got ${JSON.stringify(sandbox)}`);
    overrides.sandboxMode = r.data;
  }
  const network = str("network");
  if (network !== undefined) overrides.network = parseNetwork(network);
  if (list("rules")) overrides.rules = list("rules")!;
  if (list("allow-domain")) overrides.allowDomains = list("allow-domain")!;
  if (values["no-default-rules"] === true) overrides.noDefaultRules = true;
  if (list("writable-root")) overrides.writableRoots = list("writable-root")!;
  if (str("cwd") !== undefined) overrides.cwd = str("cwd")!;
  if (values["allow-broad-workspace"] === true) overrides.allowBroadWorkspace = true;
  if (values["allow-weaker-isolation"] === true) overrides.allowWeakerIsolation = true;
  if (str("process-limit") !== undefined) overrides.processLimit = parseProcessLimit(str("process-limit")!);
  if (values["login"] === true && values["no-login"] === true) throw new UsageError("--login and --no-login: give one of them");
  if (values["login"] === true) overrides.loginShell = true;
  if (values["no-login"] === true) overrides.loginShell = false;
  return overrides;
}

/** `--process-limit N|off`: a whole number from 8 to 4194304, or `off`. */
export function parseProcessLimit(value: string): ProcessLimitSetting {
  if (value === "off") return "off";
  const n = /^\d{1,7}$/u.test(value) ? Number(value) : NaN;
  if (!(n >= PROCESS_LIMIT_MIN && n <= PROCESS_LIMIT_MAX)) {
    throw new UsageError(`--process-limit: expected a whole number from ${PROCESS_LIMIT_MIN} to ${PROCESS_LIMIT_MAX}, or off, got ${JSON.stringify(value)}`);
  }
  return n;
}
