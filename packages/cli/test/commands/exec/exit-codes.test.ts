import { SandboxPrepareFailedError, SpawnFailedError } from "@shellgate/orchestrator";
import { describe, expect, it } from "vitest";
import { EXEC_EXIT, exitCodeForError } from "../../../src/index.js";

describe("exitCodeForError", () => {
  it("a sandbox that refused to be built is shellgate declining (125), not a failed start (127)", () => {
    expect(exitCodeForError(new SandboxPrepareFailedError("cannot prepare the sandbox: .git is a symlink"))).toBe(EXEC_EXIT.SHELLGATE_ERROR);
    expect(exitCodeForError({ code: "ORCH_SANDBOX_PREPARE_FAILED", message: "as carried in a tool response" })).toBe(EXEC_EXIT.SHELLGATE_ERROR);
    expect(exitCodeForError(new SpawnFailedError("cannot start the command: ENOENT"))).toBe(EXEC_EXIT.SPAWN_FAILED);
  });
});
