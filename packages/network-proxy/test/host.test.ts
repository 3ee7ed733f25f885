import { describe, expect, it } from "vitest";
import { NetworkProxyError, normalizeRequestHost } from "../src/index.js";
import { formatHostPort } from "../src/host.js";

describe("normalizeRequestHost", () => {
  it.each([
    ["example.com", "example.com"],
    ["  Example.COM  ", "example.com"],
    ["example.com.", "example.com"],
    ["example.com...", "example.com"],
    ["registry.example.org", "registry.example.org"],
    ["_dmarc.example.com", "_dmarc.example.com"],
    ["bücher.de", "xn--bcher-kva.de"],
    ["127.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["::1", "::1"],
    ["[::1]", "::1"],
    ["[0:0:0:0:0:0:0:1]", "::1"],
    ["0000:0000:0000:0000:0000:0000:0000:0001", "::1"],
    ["::FFFF:127.0.0.1", "::ffff:7f00:1"],
    ["[2001:DB8::1]", "2001:db8::1"],
  ])("%j → %j", (input, expected) => {
    expect(normalizeRequestHost(input)).toBe(expected);
  });

  it.each([
    [""],
    ["   "],
    ["."],
    ["example.com:443"],
    ["user@example.com"],
    ["example.com/path"],
    ["example.com?x"],
    ["example.com#x"],
    ["exa mple.com"],
    ["example\n.com"],
    ["evil.test\r\nX-Injected: 1"],
    ["%65vil.test"],
    ["a..b"],
    ["*.example.com"],
    ["fe80::1%eth0"],
    ["[::1"],
    ["[evil.test]"],
    ["[127.0.0.1]"],
    ["999.1.1.1"],
    ["a".repeat(64) + ".test"],
    [`${"a.".repeat(130)}test`],
  ])("refuses %j with NETPROXY_INVALID_HOST", (input) => {
    let thrown: unknown;
    try {
      normalizeRequestHost(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(NetworkProxyError);
    expect((thrown as NetworkProxyError).code).toBe("NETPROXY_INVALID_HOST");
  });

  it("is idempotent on its own output", () => {
    for (const h of ["Example.COM.", "0x7f.1", "[::FFFF:127.0.0.1]", "bücher.de"]) {
      const once = normalizeRequestHost(h);
      expect(normalizeRequestHost(once)).toBe(once);
    }
  });

  it("formats host:port with brackets around IPv6 only", () => {
    expect(formatHostPort("example.com", 443)).toBe("example.com:443");
    expect(formatHostPort("::1", 80)).toBe("[::1]:80");
  });
});
