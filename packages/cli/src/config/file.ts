import { readFile } from "node:fs/promises";
import { parse, TomlError } from "smol-toml";
import type { z } from "zod";
import { ConfigError } from "../errors.js";
import { ConfigFileSchema, type ConfigFile } from "./schema.js";

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "(file)";
  return `\`${field}\`: ${issue.message}`;
}

/**
 * Parse the text of one TOML configuration file.
 * @throws ConfigError naming the file and the line:column (syntax) or the field (validation).
 */
export function parseConfigText(file: string, text: string): ConfigFile {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      throw new ConfigError(`${file}:${error.line}:${error.column}`, firstLine(error.message), { cause: error });
    }
    throw new ConfigError(file, String(error), { cause: error });
  }
  const result = ConfigFileSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigError(file, issue ? describeIssue(issue) : "invalid configuration", { cause: result.error });
  }
  return result.data;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/**
 * Read one configuration file; `null` when it does not exist.
 * @throws ConfigError when it exists but cannot be read or is invalid.
 */
export async function readConfigFile(file: string): Promise<ConfigFile | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ConfigError(file, `cannot read: ${(error as Error).message}`, { cause: error });
  }
  return parseConfigText(file, text);
}
