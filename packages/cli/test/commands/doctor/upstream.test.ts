// `shellgate doctor` shows the host's upstream proxy, which proxy-routed runs go through, with the
// password hidden; one it cannot use is a problem when domains are granted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DoctorReport } from "../../../src/commands/doctor/report.js";
import { makeScratch, runBin, type Scratch } from "../../helpers.js";

let s: Scratch;
beforeAll(() => {
  s = makeScratch();
});
afterAll(() => s.cleanup());

const doctor = (env: Record<string, string>, ...args: string[]) => runBin(["doctor", "--sandbox", "danger-full-access", ...args], { env: { ...s.env, ...env }, cwd: s.project });

describe("shellgate doctor: the upstream proxy", () => {
  it("shows it redacted, in JSON and text, with NO_PROXY and the entries it does not support", async () => {
    const env = { HTTPS_PROXY: "http://me:s3cret@proxy.example.com:3128", http_proxy: "socks5h://proxy.example.com", NO_PROXY: "localhost,.corp.example.com,10.0.0.0/8" };
    const json = await doctor(env, "--json");
    const report = JSON.parse(json.stdout) as DoctorReport;
    expect(report.upstream).toEqual({
      configured: true,
      tunnels: { url: "http://me:***@proxy.example.com:3128", variable: "HTTPS_PROXY" },
      plainHttp: { url: "socks5h://proxy.example.com", variable: "http_proxy" },
      noProxy: { value: "localhost,.corp.example.com,10.0.0.0/8", variable: "NO_PROXY" },
      ignored: ["10.0.0.0/8"],
    });
    const text = await doctor(env);
    expect(text.stdout).toContain("  upstream for HTTPS and tunnels: http://me:***@proxy.example.com:3128  (HTTPS_PROXY)");
    expect(text.stdout).toContain("  upstream for plain HTTP: socks5h://proxy.example.com  (http_proxy)");
    expect(text.stdout).toContain("  direct (NO_PROXY): localhost,.corp.example.com,10.0.0.0/8");
    expect(json.stdout + text.stdout).not.toContain("s3cret");
  });

  it("without proxy variables, says connections go direct", async () => {
    const r = await doctor({});
    expect(r.stdout).toContain("upstream: none (no HTTPS_PROXY, HTTP_PROXY or ALL_PROXY here): allowed connections go direct");
  });

  it("an upstream it cannot use is a problem once a domain is granted", async () => {
    const env = { ALL_PROXY: "socks4://me:s3cret@proxy.example.com" };
    const quiet = await doctor(env, "--json");
    expect((JSON.parse(quiet.stdout) as DoctorReport).upstream).toMatchObject({ error: "ALL_PROXY=socks4://me:***@proxy.example.com: the scheme socks4:// is not supported (http://, socks5:// and socks5h:// are)" });
    expect(quiet.code).toBe(0);
    const r = await doctor(env, "--allow-domain", "registry.example.org");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("network upstream: ALL_PROXY=socks4://me:***@proxy.example.com: the scheme socks4:// is not supported");
    expect(r.stdout).not.toContain("s3cret");
  });
});
