import { describe, expect, it } from "vitest";
import { classifyAddress, NetworkProxyError } from "../src/index.js";

describe("classifyAddress", () => {
  it.each([
    // IPv4
    ["8.8.8.8", "public"],
    ["93.184.216.34", "public"],
    ["1.1.1.1", "public"],
    ["172.15.255.255", "public"],
    ["172.32.0.0", "public"],
    ["100.63.255.255", "public"],
    ["100.128.0.0", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["100.127.255.255", "private"],
    ["169.254.169.254", "link-local"],
    ["169.254.0.1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "reserved"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::ffff:255.255.255.255", "broadcast"],
    ["198.19.255.254", "reserved"],
    ["::ffff:203.0.113.80", "reserved"],
    ["192.0.2.1", "reserved"],
    ["198.51.100.7", "reserved"],
    ["203.0.113.9", "reserved"],
    ["198.18.0.1", "reserved"],
    ["192.0.0.8", "reserved"],
    // IPv6
    ["2606:4700:4700::1111", "public"],
    ["2a00:1450:4001::1", "public"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::", "unspecified"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"],
    ["3fff::1", "reserved"],
    ["100::1", "reserved"],
    ["2001::1", "reserved"],
    ["4000::1", "reserved"],
    ["::2", "reserved"],
    // IPv6 carrying IPv4: judged by the IPv4 inside
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::FFFF:169.254.169.254", "link-local"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:8.8.8.8", "public"],
    ["::127.0.0.1", "reserved"],
    ["64:ff9b::7f00:1", "private"],
    ["64:ff9b::8.8.8.8", "public"],
    ["64:ff9b:1::1", "private"],
    ["2002:7f00:1::", "private"],
    ["2002:0808:0808::1", "public"],
  ])("%s is %s", (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each(["localhost", "", "1.2.3", "::1%lo", "fe80::1%eth0", "1.2.3.4.5", "gggg::1"])("refuses %j with NETPROXY_INVALID_ADDRESS", (address) => {
    let thrown: unknown;
    try {
      classifyAddress(address);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(NetworkProxyError);
    expect((thrown as NetworkProxyError).code).toBe("NETPROXY_INVALID_ADDRESS");
  });
});
