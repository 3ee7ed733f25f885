export { startNetworkProxy } from "./start-proxy.js";
export { normalizeRequestHost } from "./host.js";
export { classifyAddress, type AddressClass } from "./address-class.js";
export {
  checkDestination,
  addressRefusal,
  addressNeeds,
  type DestinationGrant,
  type AddressNeed,
  type AddressRefusedBy,
  type AddressJudgement,
} from "./destination.js";
export {
  upstreamSettingsFromEnv,
  parseUpstream,
  parseUpstreamUrl,
  parseNoProxy,
  bypassesUpstream,
  upstreamFor,
  redactProxyUrl,
  type UpstreamSettings,
  type UpstreamSetting,
  type UpstreamProxy,
  type ParsedUpstream,
  type NoProxyEntry,
} from "./upstream.js";
export { NetworkProxyOptionsSchema, DEFAULT_CONNECT_TIMEOUT_MS } from "./options.js";
export { DEFAULT_MAX_CONNECTIONS } from "./connection-budget.js";
export {
  NetworkProxyError,
  InvalidProxyOptionsError,
  InvalidHostError,
  InvalidAddressError,
  ProxyStartError,
  ProxyListenerError,
  UnsupportedUpstreamError,
  type NetworkProxyErrorCode,
} from "./errors.js";
export type {
  ProxyProtocol,
  ProxyRequest,
  ProxyRuleRef,
  ProxyVerdict,
  ProxyDecide,
  ProxyResolver,
  NetworkRequestCause,
  NetworkRequestEvent,
  ProxyListen,
  NetworkProxyOptions,
  ProxyEndpoints,
  NetworkProxy,
} from "./types.js";
