import { createRequire } from "node:module";
import type { IPty } from "node-pty";
import { SpawnError } from "./errors.js";
import { ManagedProcess, type Driver } from "./managed.js";
import { assertPosix, precheckSpawn } from "./precheck.js";
import { signalName, TAG_ENV } from "./proc-tree.js";
import { nextTreeTag, registerGroup } from "./reaper.js";
import { TerminalRenderer } from "./render.js";
import { resolvePtySpec, type PtySpec, type ResolvedPtySpec } from "./spec.js";
import type { ExecResult, ProcessHandle } from "./types.js";

const EOF_CHAR = "\x04";

// node-pty is a native addon: loaded on the first PTY, so processes that only use pipes (one-shot
// commands, the CLI's `exec`) never load it.
let nodePty: typeof import("node-pty") | undefined;
function loadNodePty(): typeof import("node-pty") {
  nodePty ??= createRequire(import.meta.url)("node-pty") as typeof import("node-pty");
  return nodePty;
}

class PtyProcess extends ManagedProcess {
  private readonly renderer: TerminalRenderer | undefined;

  constructor(spec: ResolvedPtySpec, private readonly term: IPty, tag: string) {
    super(spec, term.pid, tag, false);
    this.renderer = spec.render
      ? new TerminalRenderer({ cols: spec.cols, rows: spec.rows, scrollback: spec.renderScrollback })
      : undefined;
    // With `encoding: null` node-pty hands over Buffers; its typings still say string.
    const dataSub = term.onData((d: string | Buffer) => {
      const bytes = typeof d === "string" ? Buffer.from(d, "utf8") : d;
      this.renderer?.write(bytes);
      this.output("pty", bytes);
    });
    // node-pty reports exit only after the terminal's read side closed (or its 200 ms guard fired),
    // so by then the output is drained.
    const exitSub = term.onExit(({ exitCode, signal }) => {
      const name = signal ? (signalName(signal) ?? `SIG${signal}`) : null;
      this.leaderExited(name ? null : exitCode, name);
      this.streamsClosed();
    });
    // node-pty rethrows terminal read errors other than EIO unless someone else listens for them.
    (term as unknown as { on(event: "error", cb: (error: Error) => void): void }).on("error", () => undefined);
    const driver: Driver = {
      kind: "pty",
      termSignals: ["SIGHUP", "SIGTERM"],
      write: (data) => term.write(typeof data === "string" ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)),
      closeStdin: () => term.write(EOF_CHAR),
      abandonStreams: () => undefined,
      dispose: () => {
        dataSub.dispose();
        exitSub.dispose();
        this.renderer?.dispose();
      },
    };
    this.attach(driver);
  }

  resize(cols: number, rows: number): void {
    if (this.hasExited) return;
    this.term.resize(cols, rows);
    this.renderer?.resize(cols, rows);
  }

  async renderedText(): Promise<string> {
    return this.renderer ? this.renderer.text() : "";
  }

  protected override async extraResult(): Promise<Partial<ExecResult>> {
    return this.renderer ? { rendered: await this.renderer.text() } : {};
  }
}

/**
 * Starts a process on a pseudo-terminal (node-pty): one merged output stream, input with echo and
 * line editing by the terminal driver, the child as session leader. Same lifetime guarantees as
 * `spawnPipe` — including the default 10 s timeout: pass `timeoutMs: 0` for an interactive session
 * that lives across calls. With `render: true` the result also carries the rendered screen text.
 *
 * Throws `InvalidProcessSpecError` for a bad spec and `SpawnError` when it cannot be started.
 */
export function spawnPty(input: PtySpec): ProcessHandle {
  assertPosix();
  const spec = resolvePtySpec(input);
  precheckSpawn(spec);
  const tag = nextTreeTag();
  const [program, ...args] = spec.argv as [string, ...string[]];
  let term: IPty;
  try {
    term = loadNodePty().spawn(program, args, {
      name: spec.env.TERM ?? "xterm-256color",
      cols: spec.cols,
      rows: spec.rows,
      cwd: spec.cwd,
      env: { ...spec.env, [TAG_ENV]: tag },
      encoding: null,
    });
  } catch (error) {
    throw new SpawnError(program, String((error as Error).message), (error as NodeJS.ErrnoException).code, { cause: error });
  }
  if (spec.hostDeathWatchdog) registerGroup(term.pid);
  return new PtyProcess(spec, term, tag);
}
