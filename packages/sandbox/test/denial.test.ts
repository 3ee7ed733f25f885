import { describe, expect, it } from "vitest";
import { isLikelySandboxDenied, type DenialCheckInput, type DenialRun } from "../src/index.js";

// A backend that names its own signals (as the Linux one does: seccomp's SIGSYS, 159 through a
// shell) and three that name none: the heuristic knows no backend by name.
const RUNS: Record<string, DenialRun> = {
  linux: { sandboxType: "linux", denialSignals: { exitCodes: [159], signals: ["SIGSYS"] } },
  seatbelt: { sandboxType: "seatbelt" },
  none: { sandboxType: "none", denialSignals: { exitCodes: [159] } },
  "linux without signals": { sandboxType: "linux" },
  windows: { sandboxType: "windows", denialSignals: { keywords: ["access is denied"] } },
};

type Row = [string, Partial<DenialCheckInput> & { exitCode: number }, keyof typeof RUNS, boolean];

const rows: Row[] = [
  ["ordinary non-zero exit is not a denial", { exitCode: 1, stderr: "error: test failed" }, "linux", false],
  ["ordinary non-zero exit under seatbelt", { exitCode: 3 }, "seatbelt", false],
  ["exit 0 is never a denial, even with keywords", { exitCode: 0, stderr: "Permission denied" }, "linux", false],
  ["unsandboxed runs are never denials", { exitCode: 1, stderr: "Operation not permitted" }, "none", false],
  ["unsandboxed SIGSYS is not a denial", { exitCode: 159 }, "none", false],
  ["keyword in stderr, any case", { exitCode: 1, stderr: "touch: x: PERMISSION DENIED" }, "linux", true],
  ["keyword in stdout", { exitCode: 1, stdout: "mkdir: Read-only file system" }, "seatbelt", true],
  ["keyword only in aggregated output", { exitCode: 1, aggregated: "bash: line 1: Operation not permitted" }, "windows", true],
  ["seccomp keyword", { exitCode: 1, stderr: "killed by seccomp filter" }, "linux", true],
  ["sandbox keyword", { exitCode: 1, stderr: "sandbox-exec: denied" }, "seatbelt", true],
  ["landlock keyword", { exitCode: 1, stderr: "Landlock restriction" }, "linux", true],
  ["failed to write file keyword", { exitCode: 1, stderr: "Failed to write file /x" }, "linux", true],
  ["keyword check comes before the exit-127 quick reject", { exitCode: 127, stderr: "bash: ./run: Permission denied" }, "linux", true],
  ["keyword check comes before the exit-126 quick reject", { exitCode: 126, stderr: "Operation not permitted" }, "seatbelt", true],
  ["exit 2 without keyword", { exitCode: 2, stderr: "usage: grep" }, "linux", false],
  ["exit 126 without keyword", { exitCode: 126, stderr: "cannot execute binary file" }, "linux", false],
  ["exit 127 without keyword", { exitCode: 127, stderr: "bash: nosuch: command not found" }, "linux", false],
  ["128+SIGSYS under the Linux sandbox", { exitCode: 159 }, "linux", true],
  ["128+SIGSYS under seatbelt is not special", { exitCode: 159 }, "seatbelt", false],
  ["128+SIGSYS under windows is not special", { exitCode: 159 }, "windows", false],
  ["a backend that names no exit codes gets none, whatever its sandboxType", { exitCode: 159 }, "linux without signals", false],
  ["a killing signal the backend names", { exitCode: 159, signal: "SIGSYS" }, "linux", true],
  ["a killing signal the backend does not name", { exitCode: 137, signal: "SIGKILL" }, "linux", false],
  ["a named signal still needs a failed exit", { exitCode: 0, signal: "SIGSYS" }, "linux", false],
  ["a keyword the backend names, any case", { exitCode: 1, stderr: "Access is denied." }, "windows", true],
  ["a keyword the backend names counts before the exit-126 quick reject", { exitCode: 126, stdout: "ACCESS IS DENIED" }, "windows", true],
  ["another backend's keyword is not this one's", { exitCode: 1, stderr: "Access is denied." }, "seatbelt", false],
  ["other signal deaths are not denials", { exitCode: 137 }, "linux", false],
  ["network failures without keywords are not detected", { exitCode: 6, stderr: "curl: (6) Could not resolve host: example.com" }, "linux", false],
  ["negative (unknown) exit code without keyword", { exitCode: -1 }, "linux", false],
];

describe("isLikelySandboxDenied", () => {
  it.each(rows)("%s", (_title, partial, run, expected) => {
    const result: DenialCheckInput = { stdout: "", stderr: "", ...partial };
    expect(isLikelySandboxDenied(result, RUNS[run]!)).toBe(expected);
  });
});
