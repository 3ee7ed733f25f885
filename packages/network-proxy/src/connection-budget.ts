import type { Socket } from "node:net";
import { debuglog } from "node:util";

/** Default of `maxConnections`: client connections open at once, both listeners together. */
export const DEFAULT_MAX_CONNECTIONS = 512;

const debug = debuglog("shellgate_netproxy");

/**
 * The client connections one proxy holds open at once, across its HTTP and SOCKS5 listeners. Each
 * holds a descriptor here and, once admitted, one to its destination: without a bound a sandboxed
 * command could open connections until the host process runs out of descriptors.
 */
export class ConnectionBudget {
  readonly max: number;
  #open = 0;
  #refused = 0;

  constructor(max: number) {
    this.max = max;
  }

  /** Connections open now. */
  get open(): number {
    return this.#open;
  }

  /** Connections refused so far because the budget was spent. */
  get refused(): number {
    return this.#refused;
  }

  /** Counts `socket` until it closes; false (counted as refused) when `max` are already open. */
  take(socket: Socket): boolean {
    if (this.#open >= this.max) {
      this.#refused++;
      debug("refused a client connection: %d are open (maxConnections)", this.#open);
      return false;
    }
    this.#open++;
    socket.once("close", () => this.#open--);
    return true;
  }
}

/** The body of the `503` an HTTP client that cannot be served now reads: the limit, and what to do. */
export function tooManyConnectionsText(max: number): string {
  return `shellgate: network access refused: ${max} connections through the proxy are open already (its maxConnections); close some and try again\n`;
}
