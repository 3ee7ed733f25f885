/**
 * Loaded by `runCommandModule` before a command's module, so before any schema exists (a static
 * import would not do: the bundler orders shared chunks as it likes).
 *
 * zod compiles a parser for each object schema (`new Function`) the first time it parses. A CLI run
 * parses each of its ~dozen schemas about once, so compiling costs more than it saves: measured
 * 9 ms of `shellgate exec -- /bin/true` (CPU time, interleaved A/B). Object schemas read the setting
 * when they are created, hence "first". Library users of the packages keep zod's default.
 */
import { z } from "zod";

z.config({ jitless: true });
