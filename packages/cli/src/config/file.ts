import { parse, TomlError } from "smol-toml";
import { z } from "zod";
import { ConfigError } from "../errors.js";
import { locateKeyPath, type TextPosition } from "./locate.js";
import { readRegularFileSync } from "./regular-file.js";
import { ConfigFileSchema, type ConfigFile } from "./schema.js";
import { suggestName } from "./suggest.js";

/** The keys the schema allows in the table at `path` (a `projects."<path>"` table included), if it is a table. */
function schemaKeysAt(path: ReadonlyArray<PropertyKey>): string[] | undefined {
  let schema: z.ZodType = ConfigFileSchema;
  for (const part of path) {
    schema = unwrapOptional(schema);
    if (schema instanceof z.ZodObject) {
      const next = (schema.shape as Record<string, z.ZodType | undefined>)[String(part)];
      if (!next) return undefined;
      schema = next;
    } else if (schema instanceof z.ZodRecord) {
      schema = schema.valueType as z.ZodType;
    } else {
      return undefined;
    }
  }
  schema = unwrapOptional(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : undefined;
}

function unwrapOptional(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
}

function tableName(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += `${out === "" ? "" : "."}${typeof p === "string" && /^[A-Za-z0-9_-]+$/.test(p) ? p : JSON.stringify(String(p))}`;
  }
  return out;
}

/** One validation problem, located in the file, in words. */
interface LocatedIssue {
  position: TextPosition | undefined;
  message: string;
  unknownKey: boolean;
}

function locateIssue(text: string, issue: z.core.$ZodIssue): LocatedIssue {
  const path = issue.path.filter((p): p is string | number => typeof p === "string" || typeof p === "number");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    const where = path.length > 0 ? ` in [${tableName(path)}]` : "";
    const suggestion = suggestName(key, schemaKeysAt(path) ?? []);
    const more = issue.keys.length > 1 ? ` (also unknown: ${issue.keys.slice(1).map((k) => `\`${k}\``).join(", ")})` : "";
    return {
      position: locateKeyPath(text, [...path, key], "key"),
      message: `unknown key \`${key}\`${where}${suggestion ? `; did you mean \`${suggestion}\`?` : ""}${more}`,
      unknownKey: true,
    };
  }
  const field = path.length > 0 ? tableName(path) : "(file)";
  return { position: locateKeyPath(text, path, "value"), message: `\`${field}\`: ${issue.message}`, unknownKey: false };
}

// An unknown key comes first: it is usually the cause of a "required" complaint about its table.
function before(a: LocatedIssue, b: LocatedIssue): number {
  if (a.unknownKey !== b.unknownKey) return a.unknownKey ? -1 : 1;
  const pa = a.position ?? { line: Infinity, column: Infinity };
  const pb = b.position ?? { line: Infinity, column: Infinity };
  return pa.line - pb.line || pa.column - pb.column;
}

/**
 * Parse the text of one TOML configuration file.
 * @throws ConfigError naming the file and line:column: where the syntax breaks, or where the first
 * invalid or unknown key is written (with "did you mean" for a near miss of a known key).
 */
export function parseConfigText(file: string, text: string): ConfigFile {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      throw new ConfigError(file, firstLine(error.message), { cause: error, line: error.line, column: error.column });
    }
    throw new ConfigError(file, String(error), { cause: error });
  }
  const result = ConfigFileSchema.safeParse(raw);
  if (!result.success) {
    const issues = result.error.issues.map((i) => locateIssue(text, i)).sort(before);
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : "";
    throw new ConfigError(file, first ? `${first.message}${more}` : "invalid configuration", {
      cause: result.error,
      ...(first?.position ? { line: first.position.line, column: first.position.column } : {}),
    });
  }
  return result.data;
}

function firstLine(message: string): string {
  // smol-toml's first line is "Invalid TOML document: <what>"; the rest repeats the source line.
  return (message.split("\n")[0] ?? message).replace(/^Invalid TOML document: /, "TOML syntax error: ");
}

/**
 * Read one configuration file; `null` when it does not exist.
 * @throws ConfigError when it exists but cannot be read or is invalid; `NotRegularFileError` (unread) when it is a FIFO, socket, device or directory.
 */
export async function readConfigFile(file: string): Promise<ConfigFile | null> {
  let text: string;
  try {
    // Synchronous: a small local file read once at start-up, cheaper than a thread-pool round trip.
    text = readRegularFileSync(file);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ConfigError(file, `cannot read: ${(error as Error).message}`, { cause: error });
  }
  return parseConfigText(file, text);
}
