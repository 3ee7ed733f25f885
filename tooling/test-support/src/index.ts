// What the packages' tests share. Private: never published, a devDependency of the packages whose tests use it.
export { whyBwrapCannotRun } from "./bwrap.js";
export { failInCi, isCi, skipTitle, skipUnless, type SkipReason, type Skippable } from "./skip.js";
