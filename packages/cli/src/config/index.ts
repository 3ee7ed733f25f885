export * from "./paths.js";
export * from "./schema.js";
export * from "./file.js";
export * from "./rules-files.js";
export * from "./load.js";
