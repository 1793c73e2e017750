/** Reading a JSON file's text with a message that says where it broke. */

/** Line and column (1-based) of a character offset. */
function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset);
  return `line ${before.split("\n").length}, column ${offset - before.lastIndexOf("\n")}`;
}

/**
 * The JSON value of `text`, or `{ error }`: `invalid JSON at line L, column C: what`
 * (the position as JSON.parse reports it, turned into a line and a column).
 */
export function parseJsonText(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    const message = (err as Error).message;
    const pos = /position (\d+)/.exec(message);
    const where = pos ? ` at ${lineCol(text, Number(pos[1]))}` : "";
    return { error: `invalid JSON${where}: ${message.replace(/ in JSON at position \d+.*$/, "")}` };
  }
}
