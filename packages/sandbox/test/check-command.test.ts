import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkCommand, CommandNotFoundError, InvalidCommandSpecError, InvalidSandboxPathError } from "../src/index.js";

const cwd = os.tmpdir();

describe.skipIf(process.platform === "win32")("checkCommand (POSIX)", () => {
  it("finds a program on the command's PATH, or on the platform's default search path without one", async () => {
    await expect(checkCommand({ argv: ["sh"], cwd, env: { PATH: "/usr/bin:/bin" } })).resolves.toBeUndefined();
    await expect(checkCommand({ argv: ["sh"], cwd, env: {} })).resolves.toBeUndefined();
    // control: the same lookup with a default that holds no sh
    const error = await checkCommand({ argv: ["sh"], cwd, env: {} }, { defaultPath: "/nonexistent-dir" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandNotFoundError);
    expect(error).toMatchObject({ program: "sh", searchPath: "/nonexistent-dir", message: "command not found: sh" });
  });

  it("names what is wrong: an empty argv, a relative or missing cwd, a path that is not an executable file", async () => {
    await expect(checkCommand({ argv: [], cwd, env: {} })).rejects.toBeInstanceOf(InvalidCommandSpecError);
    await expect(checkCommand({ argv: ["sh"], cwd: "relative", env: {} })).rejects.toMatchObject({ field: "cwd" });
    await expect(checkCommand({ argv: ["sh"], cwd: path.join(cwd, "no-such-dir-xyz"), env: {} })).rejects.toBeInstanceOf(InvalidSandboxPathError);
    await expect(checkCommand({ argv: ["/etc/passwd"], cwd, env: {} })).rejects.toMatchObject({ detail: "not an executable file" });
  });
});
