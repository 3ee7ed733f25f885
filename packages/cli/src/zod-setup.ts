/**
 * Switch zod to its interpreted parsers for this process. zod compiles a fast path for an object
 * schema (`new Function`) when the schema is built, to use from its first parse on; a CLI process
 * builds a few hundred schemas and parses most of them once, so the compiling costs more than it
 * saves (about 18 ms of `shellgate exec -- /bin/true`, measured by the CLI bench). The setting is
 * read when a schema is built, so this must run before any command module is imported. It is the
 * CLI's choice as an application: the library packages never set zod's global configuration.
 */
export async function useInterpretedZod(): Promise<void> {
  const { config } = await import("zod/v4/core");
  config({ jitless: true });
}
