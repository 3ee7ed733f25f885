// `shellgate exec --allow-domain REGISTRY -- npm install PKG` with nothing else given, through the
// built bin and the real sandbox, against a registry of the test's own: a tiny HTTP server serving
// one packument and its tarball at a documentation address (203.0.113.80, as this kind of machine's
// resolver answers for the real registry), named registry.test in an /etc/hosts of a network
// namespace of the test's own. Nothing leaves the machine.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeScratch, netnsSkip, realSandboxSkip, runBinInNetns, type Scratch } from "../../helpers.js";

const sandboxSkip = await realSandboxSkip();
const skip = sandboxSkip ?? netnsSkip(true) ?? (spawnable("npm") ? undefined : "npm is not installed");

function spawnable(program: string): boolean {
  try {
    execFileSync(program, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const ADDRESS = "203.0.113.80";
const PROXY_ADDRESS = "198.18.0.10";
let s: Scratch;
let server: string;
let proxyServer: string;

beforeAll(() => {
  s = makeScratch();
  // The package: what `npm pack` would make, built with tar.
  const pkg = path.join(s.root, "pkg", "package");
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "tiny-ms", version: "1.0.0", main: "index.js" }));
  fs.writeFileSync(path.join(pkg, "index.js"), "module.exports = (n) => `${n} ms`;\n");
  const tarball = path.join(s.root, "tiny-ms-1.0.0.tgz");
  execFileSync("tar", ["czf", tarball, "-C", path.dirname(pkg), "package"]);
  const bytes = fs.readFileSync(tarball);
  const integrity = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
  const shasum = createHash("sha1").update(bytes).digest("hex");
  const packument = {
    name: "tiny-ms",
    "dist-tags": { latest: "1.0.0" },
    versions: { "1.0.0": { name: "tiny-ms", version: "1.0.0", main: "index.js", dist: { tarball: "http://registry.test/tiny-ms/-/tiny-ms-1.0.0.tgz", integrity, shasum } } },
  };
  // Every request is logged to the server's stdout after the line that says it listens.
  server = `
    import http from "node:http";
    import fs from "node:fs";
    const packument = ${JSON.stringify(JSON.stringify(packument))};
    const tarball = fs.readFileSync(${JSON.stringify(tarball)});
    http.createServer((req, res) => {
      console.log("request", req.method, req.url);
      if (req.url === "/tiny-ms") return res.writeHead(200, { "content-type": "application/json" }).end(packument);
      if (req.url === "/tiny-ms/-/tiny-ms-1.0.0.tgz") return res.writeHead(200, { "content-type": "application/octet-stream" }).end(tarball);
      if (req.method === "POST") return res.writeHead(200, { "content-type": "application/json" }).end("{}");
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
    }).listen(80, ${JSON.stringify(ADDRESS)}, () => console.log("listening"));
  `;
  // The same registry behind an upstream HTTP proxy (absolute-form requests) that logs what it forwards.
  proxyServer = `
    ${server.replace('console.log("listening")', 'console.log("registry")')}
    const upstream = http.createServer((req, res) => {
      console.log("upstream", req.method, req.url, req.headers["proxy-authorization"] ?? "-");
      const url = new URL(req.url);
      const out = http.request({ host: ${JSON.stringify(ADDRESS)}, port: 80, method: req.method, path: url.pathname + url.search, headers: req.headers }, (a) => { res.writeHead(a.statusCode, a.headers); a.pipe(res); });
      req.pipe(out);
    });
    upstream.listen(3128, ${JSON.stringify(PROXY_ADDRESS)}, () => console.log("listening"));
  `;
  fs.writeFileSync(path.join(s.project, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true }));
});
afterAll(() => s?.cleanup());

const env = () => ({ ...s.env, npm_config_registry: "http://registry.test/", npm_config_update_notifier: "false" });
const npmInstall = (args: string[], extraEnv: Record<string, string> = {}, source = server) =>
  runBinInNetns(["exec", "--approval-policy", "never", ...args, "--", "npm", "install", "tiny-ms"], {
    env: { ...env(), ...extraEnv },
    cwd: s.project,
    hosts: { "registry.test": ADDRESS, "proxy.test": PROXY_ADDRESS },
    addresses: [ADDRESS, PROXY_ADDRESS],
    server: source,
  });

describe.skipIf(skip !== undefined)(`npm install through --allow-domain (real sandbox, own network namespace${skip ? `; skipped: ${skip}` : ""})`, () => {
  it("installs with --allow-domain and nothing else, the registry at a documentation address; the package works", async () => {
    const r = await npmInstall(["--allow-domain", "registry.test"]);
    expect(r.stderr).not.toContain("refused");
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const installed = path.join(s.project, "node_modules", "tiny-ms", "index.js");
    expect(fs.existsSync(installed)).toBe(true);
    expect(execFileSync(process.execPath, ["-e", `console.log(require(${JSON.stringify(installed)})(5))`], { encoding: "utf8" })).toBe("5 ms\n");
    // npm's cache went to the sandbox's own, never to the host's ~/.npm.
    expect(fs.existsSync(path.join(s.env["HOME"] as string, ".npm", "_cacache"))).toBe(false);
    expect(r.serverOutput).toContain("request GET /tiny-ms/-/tiny-ms-1.0.0.tgz");
  }, 60_000);

  it("without the grant the same install is refused, and the hint names the grant", async () => {
    fs.rmSync(path.join(s.project, "node_modules"), { recursive: true, force: true });
    const r = await npmInstall(["--allow-domain", "other.test"], { npm_config_fetch_retries: "0" });
    expect(r.code).not.toBe(0);
    expect(fs.existsSync(path.join(s.project, "node_modules", "tiny-ms"))).toBe(false);
    expect(r.stderr).toContain("shellgate exec: network: refused registry.test:80: no rule or grant allows this host; to allow it: re-run with --allow-domain registry.test");
    expect(r.serverOutput).not.toContain("request");
  }, 60_000);

  it("behind an upstream proxy (HTTP_PROXY with credentials in shellgate's environment) the install goes through it", async () => {
    fs.rmSync(path.join(s.project, "node_modules"), { recursive: true, force: true });
    // The sandbox's npm cache holds the tarball since the first test: emptied, so that it is fetched again.
    fs.rmSync(path.join(s.env["HOME"] as string, ".cache", "shellgate-sandbox", "npm"), { recursive: true, force: true });
    const r = await npmInstall(["--allow-domain", "registry.test"], { HTTP_PROXY: "http://me:s3cret@proxy.test:3128" }, proxyServer);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(fs.existsSync(path.join(s.project, "node_modules", "tiny-ms", "index.js"))).toBe(true);
    const auth = `Basic ${Buffer.from("me:s3cret").toString("base64")}`;
    expect(r.serverOutput).toContain(`upstream GET http://registry.test/tiny-ms ${auth}`);
    expect(r.serverOutput).toContain(`upstream GET http://registry.test/tiny-ms/-/tiny-ms-1.0.0.tgz ${auth}`);
    expect(r.stderr).not.toContain("s3cret");
  }, 60_000);
});
