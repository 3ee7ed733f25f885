export * from "./truncate.js";
export * from "./format.js";
export * from "./spill.js";
export * from "./deltas.js";
