import { readdirSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../errors.js";

/** Where a rules file came from, for `doctor` and error messages. */
export type RulesOrigin = "user" | "codex" | "config" | "flag";

/** One rules file in load order. */
export interface RulesFileEntry {
  file: string;
  origin: RulesOrigin;
}

/**
 * The `*.rules` entries directly in `dir` that are not directories, sorted by name; none when the
 * directory does not exist. Anything but a regular file among them is refused when it is loaded.
 * @throws ConfigError when the directory exists but cannot be listed (e.g. it is a file).
 */
export async function listRulesDir(dir: string): Promise<string[]> {
  try {
    // Synchronous, like the rest of start-up planning: one small directory, no thread-pool round trip.
    const entries = readdirSync(dir, { withFileTypes: true });
    return entries
      // Every entry but a directory: a FIFO or socket named *.rules is handed on, so that loading
      // refuses it by name instead of its rules silently going missing.
      .filter((e) => !e.isDirectory() && e.name.endsWith(".rules"))
      .map((e) => path.join(dir, e.name))
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return [];
    throw new ConfigError(dir, `cannot list rules directory: ${(error as Error).message}`, { cause: error });
  }
}
