// Packs every publishable package of the repository and installs the tarballs into a fresh project
// outside it, as a user would get them. Shared by the pack-and-install test and the start-up bench.
//
// The project lives in a 0700 directory under os.tmpdir() (nobody else can swap files in it while
// the tests run installed code from there). Third-party dependencies come from the npm registry
// (through npm's cache when it has them); the ones the consumer adds itself (the MCP client,
// TypeScript, Node's types) are pinned to the repository's package-lock versions. Nothing is
// installed into the repository.
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The packages under packages/ that are not private, as [name, directory]. */
export function publishablePackages() {
  const dir = path.join(REPO_ROOT, "packages");
  return readdirSync(dir)
    .map((d) => [d, path.join(dir, d, "package.json")])
    .flatMap(([d, file]) => {
      try {
        const pj = JSON.parse(readFileSync(file, "utf8"));
        return pj.private ? [] : [[pj.name, path.join(dir, d)]];
      } catch {
        return [];
      }
    })
    .sort(([a], [b]) => a.localeCompare(b));
}

/**
 * The environment for npm and the installed bins: the caller's, without the `npm_*` variables that
 * `npm test` sets (a parent's npm_config_* would otherwise steer the inner npm), and with a scratch
 * HOME/XDG_CONFIG_HOME so no user config or rules leak into the commands.
 */
export function cleanEnv(home) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && v !== undefined) env[k] = v;
  if (home) Object.assign(env, { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), NO_COLOR: "1", LANG: "C.UTF-8" });
  return env;
}

/** The version package-lock.json records for a top-level dependency. */
export function lockVersion(name) {
  const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, "package-lock.json"), "utf8"));
  const entry = lock.packages?.[`node_modules/${name}`];
  if (!entry?.version) throw new Error(`package-lock.json has no node_modules/${name}`);
  return entry.version;
}

/**
 * `npm pack` of every publishable package into `dest`, in one npm process (prepack scripts run, e.g.
 * sandbox-linux's helper check). Resolves to npm's `--json` report, one entry per tarball.
 */
export async function packTarballs(dest, env = cleanEnv()) {
  const workspaces = publishablePackages().flatMap(([name]) => ["--workspace", name]);
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", dest, ...workspaces], { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout);
}

/**
 * Pack, make the project, install. Resolves to the paths and the `npm pack --json` reports (their
 * `files` lists say what each tarball holds). `log` gets one line per step.
 */
export async function createConsumerProject({ extraDependencies = ["@modelcontextprotocol/sdk", "typescript", "@types/node"], log = () => {} } = {}) {
  const root = mkdtempSync(path.join(os.tmpdir(), "sg-pack-install-"));
  chmodSync(root, 0o700);
  const tarballs = path.join(root, "tarballs");
  const project = path.join(root, "project");
  const home = path.join(root, "home");
  for (const d of [tarballs, project, home]) mkdirSync(d, { mode: 0o700 });
  const env = cleanEnv();

  let started = Date.now();
  // Through the script the README gives users, so the documented install is the one tested.
  const { stdout } = await run(process.execPath, [path.join(REPO_ROOT, "scripts", "pack-tarballs.mjs"), "--json", tarballs], {
    cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024,
  });
  const packed = JSON.parse(stdout);
  log(`packed ${packed.length} packages in ${Date.now() - started} ms`);

  const dependencies = Object.fromEntries(packed.map((p) => [p.name, `file:${path.join(tarballs, p.filename)}`]));
  for (const name of extraDependencies) dependencies[name] = lockVersion(name);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "shellgate-consumer", private: true, type: "module", dependencies }, null, 2));
  started = Date.now();
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: project, env, maxBuffer: 64 * 1024 * 1024 });
  log(`installed into ${project} in ${Date.now() - started} ms`);
  return { root, tarballs, project, home, packed, bin: (name) => path.join(project, "node_modules", ".bin", name) };
}
