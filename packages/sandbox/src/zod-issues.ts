import type { z } from "zod";

/** The first problem zod found, as a dotted field path (`writableRoots.1`, `deniedReadPaths`) and a message. */
export function firstZodIssue(error: z.ZodError, whole: string): { field: string; message: string; path: PropertyKey[] } {
  const issue = error.issues[0];
  if (!issue) return { field: whole, message: "invalid value", path: [] };
  const path: PropertyKey[] = [...issue.path];
  let message = issue.message;
  // An unknown key is a problem *of that key*: name it instead of its parent object.
  if (issue.code === "unrecognized_keys" && issue.keys.length > 0) {
    path.push(issue.keys[0] as string);
    message = issue.keys.length > 1 ? `unknown field (also ${issue.keys.slice(1).join(", ")})` : "unknown field";
  }
  return { field: path.length > 0 ? path.map(String).join(".") : whole, message, path };
}
