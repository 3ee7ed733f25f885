import { parseArgs, type ParseArgsConfig } from "node:util";
import { ApprovalPolicyNameSchema, SandboxModeNameSchema, type ConfigOverrides } from "./config/index.js";
import { UsageError } from "./errors.js";

export { CONFIG_OPTIONS, CONFIG_OPTIONS_HELP } from "./options.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The result of {@link parseCommandArgs}: option values, positionals, and whether `--` was given. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  /** Positionals after the first `--` (empty when there was none). */
  afterTerminator: string[];
  hadTerminator: boolean;
}

/**
 * Parse one command's arguments strictly.
 * @throws UsageError naming the flag for unknown options or missing values.
 */
export function parseCommandArgs(args: string[], options: Options, allowPositionals = true): ParsedArgs {
  const shortAliases: Options = {};
  if ("rules" in options) shortAliases["rules"] = { ...options["rules"]!, short: "r" };
  if ("help" in options) shortAliases["help"] = { ...options["help"]!, short: "h" };
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, ...shortAliases }, allowPositionals, strict: true, tokens: true });
  } catch (error) {
    throw new UsageError(cleanParseError((error as Error).message), { cause: error });
  }
  const terminator = parsed.tokens.find((t) => t.kind === "option-terminator");
  const afterTerminator =
    terminator === undefined ? [] : parsed.tokens.filter((t) => t.kind === "positional" && t.index > terminator.index).map((t) => (t as { value: string }).value);
  return {
    values: parsed.values as ParsedArgs["values"],
    positionals: parsed.positionals,
    afterTerminator,
    hadTerminator: terminator !== undefined,
  };
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
  if (network !== undefined) {
    if (!["on", "off", "true", "false"].includes(network)) throw new UsageError(`--network: expected on or off, got ${JSON.stringify(network)}`);
    overrides.network = network === "on" || network === "true";
  }
  if (list("rules")) overrides.rules = list("rules")!;
  if (values["no-default-rules"] === true) overrides.noDefaultRules = true;
  if (list("writable-root")) overrides.writableRoots = list("writable-root")!;
  if (str("cwd") !== undefined) overrides.cwd = str("cwd")!;
  if (values["allow-broad-workspace"] === true) overrides.allowBroadWorkspace = true;
  return overrides;
}

/** Parse a non-negative integer flag value. */
export function parseMillis(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag}: expected a whole number of milliseconds, got ${JSON.stringify(value)}`);
  return Number(value);
}
