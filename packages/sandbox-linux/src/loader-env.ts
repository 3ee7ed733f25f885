/**
 * Variables that make the dynamic loader or libc load code or files chosen by whoever set them.
 * They must not act on bubblewrap (dynamically linked, runs before any confinement) nor on the
 * helper, so they are taken out of the spawn environment and handed to the command by the helper,
 * after the sandbox is in place.
 */
const LOADER_VARIABLE = /^(LD_.*|GCONV_PATH|GLIBC_TUNABLES|GETCONF_DIR|HOSTALIASES|LOCALDOMAIN|LOCPATH|MALLOC_.*|NIS_PATH|NLSPATH|RES_OPTIONS|RESOLV_HOST_CONF)$/;

/** Split an environment into what the sandbox machinery may see and what only the command may. */
export function splitLoaderEnv(env: Readonly<Record<string, string>>): { safe: Record<string, string>; deferred: string[] } {
  const safe: Record<string, string> = {};
  const deferred: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (LOADER_VARIABLE.test(name)) deferred.push("--setenv", `${name}=${value}`);
    else safe[name] = value;
  }
  return { safe, deferred };
}
