import { upstreamSettingsFromEnv } from "@shellgate/network-proxy";
import { describe, expect, it } from "vitest";
import { upstreamFromHostEnv } from "../src/network-upstream.js";

// The CLI reads the proxy variables without loading the proxy package; it must read them as the
// proxy package does.
describe("upstreamFromHostEnv", () => {
  it.each([
    {},
    { PATH: "/bin", NO_PROXY: "x.test" },
    { HTTPS_PROXY: "http://a.example.com:1", https_proxy: "http://b.example.com:2" },
    { HTTP_PROXY: " http://c.example.com ", ALL_PROXY: "socks5h://d.example.com", no_proxy: "*", NO_PROXY: "y.test" },
    { all_proxy: "", ALL_PROXY: "socks5://e.example.com" },
  ])("reads %j as the proxy package does", (env) => {
    expect(upstreamFromHostEnv(env)).toEqual(upstreamSettingsFromEnv(env));
  });
});
