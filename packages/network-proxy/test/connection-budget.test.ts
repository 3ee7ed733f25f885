// The proxy's bound on client connections held open at once, both listeners together.
import type net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { NetworkProxy } from "../src/index.js";
import type { ConnectionBudget } from "../src/connection-budget.js";
import { kConnections } from "../src/start-proxy.js";
import { connectTo, httpViaProxy, proxyWith, readAll, startOrigin, stopAll, tableResolver, type Endpoint } from "./helpers.js";

let origin: Awaited<ReturnType<typeof startOrigin>>;
beforeAll(async () => {
  origin = await startOrigin("registry");
});
afterAll(() => origin.close());
afterEach(stopAll);

const decide = () => ({ decision: "allow" as const, allowPrivate: true });
const resolver = () => tableResolver({ "registry.test": ["127.0.0.1"] });
const budgetOf = (proxy: NetworkProxy) => (proxy as unknown as Record<symbol, ConnectionBudget>)[kConnections] as ConnectionBudget;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection that sends nothing, once the proxy has counted it. */
async function idle(proxy: NetworkProxy, endpoint: Endpoint, expected: number): Promise<net.Socket> {
  const socket = connectTo(endpoint);
  socket.on("error", () => {});
  for (let i = 0; i < 200 && budgetOf(proxy).open + budgetOf(proxy).refused < expected; i++) await sleep(5);
  return socket;
}

describe("maxConnections", () => {
  it("answers a connection past the budget 503 (HTTP) or closes it unread (SOCKS5), and serves again once one closes", async () => {
    const { proxy, events } = await proxyWith({ decide, resolver: resolver(), maxConnections: 2 });
    const a = await idle(proxy, proxy.endpoints.http, 1);
    const b = await idle(proxy, proxy.endpoints.socks, 2);
    expect(budgetOf(proxy).open).toBe(2);
    // Over the budget on either listener: the two share it.
    const refusedHttp = await readAll(connectTo(proxy.endpoints.http));
    expect(refusedHttp).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(refusedHttp).toMatch(/\r\n\r\nshellgate: network access refused: 2 connections through the proxy are open already \(its maxConnections\); close some and try again\n$/);
    const refusedSocks = connectTo(proxy.endpoints.socks);
    refusedSocks.on("error", () => {});
    refusedSocks.write(Buffer.from([5, 1, 0]));
    expect(await readAll(refusedSocks)).toBe("");
    expect(budgetOf(proxy).refused).toBe(2);
    // Nothing was asked for, so nothing was decided.
    expect(events).toEqual([]);
    a.destroy();
    for (let i = 0; i < 200 && budgetOf(proxy).open > 1; i++) await sleep(5);
    const served = await httpViaProxy(proxy.endpoints.http, `http://registry.test:${origin.port}/pkg`);
    expect(served).toMatchObject({ status: 200, body: "registry /pkg" });
    b.destroy();
  });

  it("does not refuse below the budget (control: the same three connections with the default)", async () => {
    const { proxy } = await proxyWith({ decide, resolver: resolver() });
    const held = [await idle(proxy, proxy.endpoints.http, 1), await idle(proxy, proxy.endpoints.socks, 2)];
    const served = await httpViaProxy(proxy.endpoints.http, `http://registry.test:${origin.port}/pkg`);
    expect(served).toMatchObject({ status: 200, body: "registry /pkg" });
    expect(budgetOf(proxy).refused).toBe(0);
    expect(budgetOf(proxy).max).toBe(512);
    for (const socket of held) socket.destroy();
  });
});
