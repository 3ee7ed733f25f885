/** A policy source text with line lookup, used to attach the source line to diagnostics. */
import { PolicyDiagnosticError } from "../errors.js";
import type { PolicyErrorCode } from "../errors.js";

/** Source text of one policy file plus its identifier (the path shown in diagnostics). */
export class SourceText {
  readonly file: string;
  readonly text: string;
  private lineStarts: number[] | undefined;
  constructor(file: string, text: string) {
    this.file = file;
    this.text = text;
  }
  private starts(): number[] {
    if (!this.lineStarts) {
      const starts = [0];
      const re = /\r\n|\r|\n/g;
      for (let m = re.exec(this.text); m; m = re.exec(this.text)) starts.push(m.index + m[0].length);
      this.lineStarts = starts;
    }
    return this.lineStarts;
  }
  /** Number of lines (an empty file has one, empty, line). */
  get lineCount(): number {
    return this.starts().length;
  }
  /** Text of 1-based line `n` without its terminator ("" when out of range). */
  line(n: number): string {
    const starts = this.starts();
    const start = starts[n - 1];
    if (start === undefined) return "";
    const next = starts[n];
    return this.text.slice(start, next === undefined ? undefined : next).replace(/(\r\n|\r|\n)$/, "");
  }
  /** Build a diagnostic at `line:column` of this file. */
  error(code: PolicyErrorCode, message: string, line: number, column: number, span = 1): PolicyDiagnosticError {
    return new PolicyDiagnosticError(code, message, { file: this.file, line, column, sourceLine: this.line(line), span });
  }
}
