// A ping's body (a job's output) made safe to print on a terminal: decoded as
// UTF-8, its escape sequences removed (colours, cursor moves, titles: job
// output may carry any of them, and the terminal would obey), other control
// characters shown as U+FFFD, tabs expanded, and a line that a carriage
// return rewrote (a progress bar) shown as it ended.

const TAB = 8;

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), the other escapes (ESC, intermediates, final), and 8-bit CSI.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]|\x9b[0-?]*[ -/]*[@-~]/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** The body as lines of printable text. */
export function bodyLines(body: Uint8Array): string[] {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  // A final newline ends the last line; it does not start an empty one.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines.map((line) => expandTabs((line.split('\r').at(-1) ?? '').replace(ESCAPES, '').replace(CONTROLS, '\ufffd')));
}

function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) out += ch === '\t' ? ' '.repeat(TAB - (out.length % TAB)) : ch;
  return out;
}
