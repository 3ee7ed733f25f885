/** Appending an "always allow this prefix" rule to a rules file (the amend of an approval). */
// `fs.promises` is read where it is used: importing node:fs/promises would load it on every CLI start.
import fs from "node:fs";
import { dirname } from "node:path";
import { AmendError, InvalidArgumentError } from "../errors.js";
import { withFileLock } from "./lock.js";
import type { LockOptions } from "./lock.js";

import { MAX_AMEND_FILE_BYTES, formatAllowPrefixRule, formatNetworkRule } from "./format.js";
import type { AllowRuleSandbox, NetworkRuleToAppend } from "./format.js";

function validatePrefix(prefix: unknown): asserts prefix is string[] {
  if (!Array.isArray(prefix)) throw new InvalidArgumentError("prefix", "expected an array of strings");
  if (prefix.length === 0) throw new InvalidArgumentError("prefix", "prefix rule requires at least one token");
  prefix.forEach((t, i) => {
    if (typeof t !== "string") throw new InvalidArgumentError(`prefix[${i}]`, `expected a string, got ${typeof t}`);
  });
}

function validateFile(file: unknown): asserts file is string {
  if (typeof file !== "string" || file === "") throw new InvalidArgumentError("file", "expected a non-empty path");
}

/** Implementation of `appendAllowPrefixRule` (loaded on first use; see `amend/index.ts`). */
export async function appendAllowPrefixRuleImpl(file: string, prefix: readonly string[], options: LockOptions & AllowRuleSandbox = {}): Promise<{ added: boolean }> {
  validateFile(file);
  validatePrefix(prefix);
  const line = formatAllowPrefixRule(prefix, { sandbox: options.sandbox, network: options.network });
  return appendLine(file, line, true, options);
}

/** Implementation of `appendNetworkRule`: never de-duplicated, because the order of network rules decides (last wins). */
export async function appendNetworkRuleImpl(file: string, rule: NetworkRuleToAppend, options: LockOptions = {}): Promise<{ added: boolean }> {
  validateFile(file);
  const line = formatNetworkRule(rule);
  return appendLine(file, line, false, options);
}

/** Append `line` (and a newline) under the file lock; with `dedupe`, skip when an identical line is there. */
async function appendLine(file: string, line: string, dedupe: boolean, options: LockOptions): Promise<{ added: boolean }> {
  try {
    await fs.promises.mkdir(dirname(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new AmendError(file, "mkdir", `failed to create policy directory ${dirname(file)}: ${(e as Error).message}`, e);
    }
  }
  try {
    return await withFileLock(file, async () => {
      let fh;
      try {
        // Non-blocking: were a FIFO there, opening it must not wait (it is refused below).
        const { O_RDWR, O_APPEND, O_CREAT, O_NONBLOCK } = fs.constants;
        fh = await fs.promises.open(file, O_RDWR | O_APPEND | O_CREAT | (O_NONBLOCK ?? 0), 0o666);
      } catch (e) {
        throw new AmendError(file, "open", `failed to open policy file: ${(e as Error).message}`, e);
      }
      try {
        const st = await fh.stat();
        if (!st.isFile()) throw new AmendError(file, "open", "the policy file is not a regular file (a FIFO, socket or device); refusing to write to it");
        const { size } = st;
        if (size > MAX_AMEND_FILE_BYTES) throw new AmendError(file, "read", `policy file is larger than ${MAX_AMEND_FILE_BYTES} bytes`);
        const buf = Buffer.alloc(size);
        let off = 0;
        try {
          while (off < size) {
            const { bytesRead } = await fh.read(buf, off, size - off, off);
            if (bytesRead === 0) break;
            off += bytesRead;
          }
        } catch (e) {
          throw new AmendError(file, "read", `failed to read policy file: ${(e as Error).message}`, e);
        }
        const text = buf.subarray(0, off).toString("utf8");
        if (dedupe && text.split("\n").includes(line)) return { added: false };
        const prefixNl = text.length > 0 && !text.endsWith("\n") ? "\n" : "";
        try {
          await fh.appendFile(`${prefixNl}${line}\n`, "utf8");
        } catch (e) {
          throw new AmendError(file, "write", `failed to write policy file: ${(e as Error).message}`, e);
        }
        return { added: true };
      } finally {
        await fh.close();
      }
    }, options);
  } catch (e) {
    if (e instanceof AmendError) throw e;
    if ((e as NodeJS.ErrnoException).code === "ELOCKTIMEOUT") throw new AmendError(file, "lock", (e as Error).message, e);
    throw new AmendError(file, "lock", `failed to lock policy file: ${(e as Error).message}`, e);
  }
}
