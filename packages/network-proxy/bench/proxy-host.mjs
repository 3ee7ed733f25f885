// The proxy in its own process, as it runs in production (the host; the client is a sandboxed command).
import { startNetworkProxy } from "../dist/index.js";

// The bench's origin is on loopback, so the grant carries allowPrivate, as an explicit grant does.
const proxy = await startNetworkProxy({
  listen: { transport: "loopback-tcp" },
  decide: () => ({ decision: "allow", allowPrivate: true }),
  resolver: async () => [{ address: "127.0.0.1", family: 4 }],
});
process.send?.(proxy.endpoints);
process.on("disconnect", () => void proxy.stop().then(() => process.exit(0)));
// CPU time on request, so the bench can report cost per byte, which machine load does not distort.
process.on("message", (m) => m === "cpu" && process.send?.({ cpu: process.cpuUsage() }));
