/**
 * The program of a pipe launcher (see launcher.ts), run as `node -e`. Plain CommonJS on Node's
 * built-ins only. Messages from the host: `{ op: "spawn", id, argv, cwd, env }`. To the host: `spawned`
 * (with the pid), then `fd` 1, 2 and 3 each carrying that descriptor's socket (the launcher's copy is
 * closed once sent), `failed` instead when it cannot be spawned, and `exit` when it ends. When the
 * channel closes (the host closed it, or died), every process it started is killed with its group,
 * reaped, and the launcher exits.
 */
export const LAUNCHER_SOURCE = `"use strict";
const { spawn } = require("node:child_process");
const live = new Set();
const tell = (message, handle) => {
  if (!process.connected) return false;
  try { process.send(message, handle, {}, () => {}); return true; } catch { return false; }
};
process.on("message", (m) => {
  if (!m || m.op !== "spawn") return;
  let child;
  try {
    child = spawn(m.argv[0], m.argv.slice(1), { cwd: m.cwd, env: m.env, detached: true, stdio: ["ignore", "pipe", "pipe", "pipe"] });
  } catch (e) {
    tell({ op: "failed", id: m.id, message: String(e && e.message), code: e && e.code });
    return;
  }
  child.on("error", () => {});
  if (child.pid === undefined) {
    tell({ op: "failed", id: m.id, message: "the operating system refused to start it (permissions or resource limits)" });
    return;
  }
  const pid = child.pid;
  live.add(pid);
  // Node starts reading a child's pipes at once; what the launcher read would be lost to the host
  // (output a waiting process must not have written, an EOF that would close the socket before it is
  // handed over). Nothing has been read yet in this tick: stop, and let the host's sockets read it all.
  for (const fd of [1, 2, 3]) {
    const h = child.stdio[fd] && child.stdio[fd]._handle;
    if (h && typeof h.readStop === "function") h.readStop();
  }
  child.on("exit", (code, signal) => {
    live.delete(pid);
    tell({ op: "exit", id: m.id, code, signal });
    finish();
  });
  tell({ op: "spawned", id: m.id, pid });
  for (const fd of [1, 2, 3]) {
    if (tell({ op: "fd", id: m.id, fd }, child.stdio[fd])) continue;
    // A process whose descriptors cannot all be handed over is of no use to the host.
    try { process.kill(-pid, "SIGKILL"); } catch {}
    tell({ op: "failed", id: m.id, message: "its descriptor " + fd + " could not be handed over" });
    return;
  }
});
let closing = false;
const finish = () => { if (closing && live.size === 0) process.exit(0); };
process.on("disconnect", () => {
  closing = true;
  for (const pid of live) { try { process.kill(-pid, "SIGKILL"); } catch {} }
  // Reaped here before exiting, so that none is left a zombie for whoever inherits it.
  finish();
  setTimeout(() => process.exit(0), 2000).unref();
});
`;
