export * from "./session.js";
export * from "./store.js";
export * from "./collect.js";
export * from "./manager.js";
export * from "./pty-adapter.js";
