import { describe, expect, it } from "vitest";
import { addressNeeds, addressRefusal, checkDestination, classifyAddress, type DestinationGrant } from "../src/index.js";

const none: DestinationGrant = {};
const named: DestinationGrant = { allowNamed: true };
const explicit: DestinationGrant = { allowNamed: true, allowPrivate: true };

// Each class in IPv4, IPv6 and (where one exists) IPv4-mapped IPv6, with what each grant lets through.
const table: Array<[address: string, kind: string, none: boolean, named: boolean, explicit: boolean]> = [
  ["93.184.216.34", "public", true, true, true],
  ["2606:4700:4700::1111", "public", true, true, true],
  ["::ffff:8.8.8.8", "public", true, true, true],
  ["10.1.2.3", "private", false, true, true],
  ["100.64.0.1", "private", false, true, true],
  ["fd00::1", "private", false, true, true],
  ["::ffff:192.168.0.1", "private", false, true, true],
  ["203.0.113.80", "reserved", false, true, true],
  ["198.18.0.1", "reserved", false, true, true],
  ["198.19.255.1", "reserved", false, true, true],
  ["192.0.2.1", "reserved", false, true, true],
  ["2001:db8::1", "reserved", false, true, true],
  ["::ffff:203.0.113.80", "reserved", false, true, true],
  ["127.0.0.1", "loopback", false, false, true],
  ["::1", "loopback", false, false, true],
  ["::ffff:127.0.0.1", "loopback", false, false, true],
  ["169.254.169.254", "link-local", false, false, true],
  ["fe80::1", "link-local", false, false, true],
  ["::ffff:169.254.169.254", "link-local", false, false, true],
  ["0.0.0.0", "unspecified", false, false, false],
  ["::", "unspecified", false, false, false],
  ["::ffff:0.0.0.0", "unspecified", false, false, false],
  ["224.0.0.1", "multicast", false, false, false],
  ["ff02::1", "multicast", false, false, false],
  ["::ffff:239.1.1.1", "multicast", false, false, false],
  ["255.255.255.255", "broadcast", false, false, false],
  ["::ffff:255.255.255.255", "broadcast", false, false, false],
];

describe("address classes and what reaches them", () => {
  it.each(table)("%s is %s (no grant %s, by name %s, explicit %s)", (address, kind, byNone, byNamed, byExplicit) => {
    expect(classifyAddress(address)).toBe(kind);
    expect(addressRefusal("h.test", address, none) === undefined).toBe(byNone);
    expect(addressRefusal("h.test", address, named) === undefined).toBe(byNamed);
    expect(addressRefusal("h.test", address, explicit) === undefined).toBe(byExplicit);
    // allowPrivate alone implies the name grant
    expect(addressRefusal("h.test", address, { allowPrivate: true }) === undefined).toBe(byExplicit);
  });

  it("needs: public nothing, private/reserved a name, loopback/link-local an explicit grant, the rest never", () => {
    expect(["public", "private", "reserved", "loopback", "link-local", "unspecified", "multicast", "broadcast", "invalid"].map((k) => addressNeeds(k as never))).toEqual([
      "nothing", "named", "named", "explicit", "explicit", "never", "never", "never", "never",
    ]);
  });

  it("says what refused an address", () => {
    expect(addressRefusal("registry.test", "203.0.113.80", none)).toEqual({
      kind: "reserved",
      refusedBy: "needs-name-grant",
      reason: "registry.test resolves to 203.0.113.80, a reserved address, reachable only for a host allowed by name",
    });
    expect(addressRefusal("registry.test", "127.0.0.1", named)?.refusedBy).toBe("needs-explicit-grant");
    expect(addressRefusal("255.255.255.255", "255.255.255.255", explicit)).toMatchObject({
      refusedBy: "never-reachable",
      reason: "255.255.255.255 is a broadcast address, never reachable through the proxy",
    });
    expect(addressRefusal("scoped.test", "fe80::1%eth0", explicit)).toMatchObject({ kind: "invalid", refusedBy: "never-reachable" });
  });

  it("judges every address and refuses the host at the first refused one", () => {
    const r = checkDestination("mixed.test", ["203.0.113.5", "127.0.0.1", "224.0.0.1"], named);
    expect(r.addresses.map((a) => [a.address, a.kind, a.refusedBy])).toEqual([
      ["203.0.113.5", "reserved", undefined],
      ["127.0.0.1", "loopback", "needs-explicit-grant"],
      ["224.0.0.1", "multicast", "never-reachable"],
    ]);
    expect(r.refused?.address).toBe("127.0.0.1");
    expect(checkDestination("ok.test", ["203.0.113.5", "10.0.0.1"], named).refused).toBeUndefined();
  });
});
