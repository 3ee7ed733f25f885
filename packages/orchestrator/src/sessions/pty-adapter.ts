import type { ProcessHandle } from "@shellgate/pty";
import type { SessionProcess } from "./session.js";

/** Present a `@shellgate/pty` handle as a session process (output of every stream merged). */
export function sessionProcessFromHandle(handle: ProcessHandle): SessionProcess {
  return {
    pid: handle.pid,
    tty: handle.kind === "pty",
    write: (data) => handle.write(data),
    onOutput: (listener) => handle.onOutput((chunk) => listener(chunk.data)),
    exited: handle.exited.then((info) => ({ exitCode: info.exitCode })),
    terminate: () => handle.terminate(),
    drained: handle.result(),
  };
}
