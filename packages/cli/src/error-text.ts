/**
 * The text a person should see for an error: a policy diagnostic's rendered form (file:line:col with the
 * offending source line) when the error can render itself, else its message. Never a stack trace.
 */
export function describeError(error: unknown): string {
  if (error && typeof error === "object" && "render" in error && typeof (error as { render: unknown }).render === "function") {
    try {
      const rendered = (error as { render(): unknown }).render();
      if (typeof rendered === "string" && rendered.trim() !== "") return rendered.trimEnd();
    } catch {
      // Fall through to the message: a broken renderer must not hide the error itself.
    }
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The stable `code` of a package error, if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (error && typeof error === "object" && "code" in error && typeof (error as { code: unknown }).code === "string") {
    return (error as { code: string }).code;
  }
  return undefined;
}
