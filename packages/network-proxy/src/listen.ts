import { chmod, lstat, unlink } from "node:fs/promises";
import type { Server } from "node:net";
import { InvalidProxyOptionsError, ProxyStartError } from "./errors.js";

/**
 * The socket directory must be a real directory (not a symlink) owned by this user and writable by
 * no one else: the sockets are the sandbox's only way out, so nobody else may create, replace or
 * remove entries next to them. The caller creates it 0700; this only refuses what would be unsafe.
 */
export async function checkSocketDirectory(directory: string): Promise<void> {
  if (typeof process.getuid !== "function") {
    throw new InvalidProxyOptionsError("listen.transport", "unix-socket needs a POSIX platform (use loopback-tcp)");
  }
  let stats;
  try {
    stats = await lstat(directory);
  } catch (error) {
    throw new InvalidProxyOptionsError("listen.directory", `cannot inspect ${directory}: ${(error as Error).message}`, { cause: error });
  }
  if (!stats.isDirectory()) throw new InvalidProxyOptionsError("listen.directory", `${directory} is not a directory (a symlink is not accepted)`);
  if (stats.uid !== process.getuid()) {
    throw new InvalidProxyOptionsError("listen.directory", `${directory} is owned by uid ${stats.uid}, not by this process (uid ${process.getuid()})`);
  }
  if ((stats.mode & 0o022) !== 0) {
    throw new InvalidProxyOptionsError("listen.directory", `${directory} is writable by group or others (mode ${(stats.mode & 0o777).toString(8)}); create it 0700`);
  }
}

/** Where one listener listens. */
export type ListenTarget = { path: string } | { host: "127.0.0.1"; port: 0 };

/** Starts `server` listening; resolves with the port (TCP) or the path (unix socket). */
export function listenOn(server: Server, target: ListenTarget, name: string): Promise<{ port?: number; socketPath?: string }> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off("listening", onListening);
      const where = "path" in target ? target.path : "127.0.0.1";
      reject(new ProxyStartError(`cannot listen for ${name} on ${where}: ${error.message}`, { cause: error }));
    };
    const onListening = () => {
      server.off("error", onError);
      const address = server.address();
      if ("path" in target) resolve({ socketPath: target.path });
      else if (address !== null && typeof address === "object") resolve({ port: address.port });
      else reject(new ProxyStartError(`${name} listener reports no port`));
    };
    server.once("error", onError);
    server.once("listening", onListening);
    if ("path" in target) server.listen({ path: target.path, exclusive: true });
    else server.listen({ host: target.host, port: target.port, exclusive: true });
  });
}

/**
 * Narrows a freshly bound socket to 0600. The directory already keeps others out; this keeps the
 * socket private too should the directory's mode ever be widened. The lstat makes sure what gets
 * chmod-ed is the socket just bound, not something swapped in.
 */
export async function secureSocketFile(path: string): Promise<void> {
  const stats = await lstat(path);
  if (!stats.isSocket() || stats.uid !== process.getuid?.()) throw new ProxyStartError(`${path} is not the socket this process bound`);
  await chmod(path, 0o600);
}

/** Removes a socket file this proxy bound, if it is still there and still a socket. */
export async function removeSocketFile(path: string): Promise<void> {
  try {
    if ((await lstat(path)).isSocket()) await unlink(path);
  } catch {
    // Already gone (libuv unlinks a pipe it closes): nothing to do.
  }
}
