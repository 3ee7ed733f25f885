// The proxy in its own process, as it runs in production (the host; the client is a sandboxed command).
import { readFileSync } from "node:fs";
import { startNetworkProxy } from "../dist/index.js";

// The bench's origin is on loopback, so the grant carries allowPrivate, as an explicit grant does.
const proxy = await startNetworkProxy({
  listen: { transport: "loopback-tcp" },
  decide: () => ({ decision: "allow", allowPrivate: true }),
  resolver: async () => [{ address: "127.0.0.1", family: 4 }],
  // Set by the bench for its "+ splicer" modes: bulk tunnels then leave this process.
  ...(process.env.BENCH_SPLICER ? { tunnelSplicer: process.env.BENCH_SPLICER } : {}),
});
process.send?.(proxy.endpoints);
process.on("disconnect", () => void proxy.stop().then(() => process.exit(0)));
// CPU time on request, so the bench can report cost per byte, which machine load does not distort.
// Splicer children count too: their CPU is the proxy's (cutime + cstime of reaped children, in ticks).
const TICK_US = 10_000;
const childrenUs = () => {
  const fields = readFileSync("/proc/self/stat", "utf8").replace(/^.*\) /su, "").split(" ");
  return (Number(fields[13]) + Number(fields[14])) * TICK_US;
};
process.on("message", (m) => {
  if (m !== "cpu") return;
  const own = process.cpuUsage();
  const children = process.platform === "linux" ? childrenUs() : 0;
  process.send?.({ cpu: { user: own.user + children, system: own.system } });
});
