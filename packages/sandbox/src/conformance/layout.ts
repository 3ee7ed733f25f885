import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** The directories and host endpoints one conformance run works against (JSON: scripts read it). */
export interface ConformanceLayout {
  /** The workspace: the command's cwd and only writable root. Holds `.git/hooks/`. */
  workspace: string;
  /** A directory outside every writable root, with `readable.txt` and `denied.txt` in it. */
  outside: string;
  /** A file the deny-read case denies; its content is `secret`. */
  deniedFile: string;
  secret: string;
  /** A TCP port on the host's 127.0.0.1 with a listener behind it. */
  tcpPort: number;
  /** A unix socket the host listens on (undefined on Windows). */
  unixSocket?: string;
  /** A process of the host, alive for the layout's lifetime. */
  hostPid: number;
}

/** Where layouts are made. */
export interface LayoutOptions {
  /** Parent of the workspace; default `os.tmpdir()`. */
  workspaceParent?: string;
  /**
   * Parent of the outside directory. Default `/var/tmp` where it exists, else `os.tmpdir()`: a
   * backend may give commands a private temp directory, which would hide an outside directory
   * under it for the wrong reason (and fail the case that reads outside).
   */
  outsideParent?: string;
}

/** A layout with the host side running; `close()` stops it and removes the directories. */
export interface OpenLayout {
  layout: ConformanceLayout;
  close(): Promise<void>;
}

function listen(server: net.Server, address: net.ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(address, () => resolve());
  });
}

/** Make a fresh layout: directories, files, a TCP and a unix listener, and a host process to signal. */
export async function openLayout(options: LayoutOptions = {}): Promise<OpenLayout> {
  const base = realpathSync(mkdtempSync(path.join(options.workspaceParent ?? os.tmpdir(), "sg-conformance-")));
  const outsideParent = options.outsideParent ?? (existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir());
  const outside = realpathSync(mkdtempSync(path.join(outsideParent, "sg-conformance-outside-")));
  const workspace = path.join(base, "workspace");
  mkdirSync(path.join(workspace, ".git", "hooks"), { recursive: true });
  writeFileSync(path.join(workspace, ".git", "HEAD"), "ref: refs/heads/main\n");
  const secret = `secret-${process.pid}-${Date.now()}`;
  const deniedFile = path.join(outside, "denied.txt");
  writeFileSync(deniedFile, secret);
  writeFileSync(path.join(outside, "readable.txt"), "readable");
  const servers: net.Server[] = [];
  let child: ChildProcess | undefined;
  const close = async () => {
    child?.kill("SIGKILL");
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    rmSync(base, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  };
  try {
    const tcp = net.createServer((socket) => socket.destroy());
    servers.push(tcp);
    await listen(tcp, { host: "127.0.0.1", port: 0 });
    const tcpPort = (tcp.address() as net.AddressInfo).port;
    let unixSocket: string | undefined;
    if (process.platform !== "win32") {
      unixSocket = path.join(outside, "host.sock");
      const unix = net.createServer((socket) => socket.destroy());
      servers.push(unix);
      await listen(unix, { path: unixSocket });
    }
    child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const hostPid = child.pid;
    if (hostPid === undefined) throw new Error("could not start the host process the signal case aims at");
    return { layout: { workspace, outside, deniedFile, secret, tcpPort, ...(unixSocket ? { unixSocket } : {}), hostPid }, close };
  } catch (error) {
    await close();
    throw error;
  }
}
