// A one-line progress bar for long admin commands, redrawn in place on a
// terminal. It is for people: nothing is drawn when the stream is not a TTY
// (a pipe, a log file, --json output read by a program).

export interface Progress {
  update(done: number, total: number): void;
  /** A passing remark shown after the bar (or as a line of its own without a bar). */
  note(text: string): void;
  /** Remove the bar. */
  end(): void;
}

const WIDTH = 30;
/** Redraws at most this often: a fast local import makes thousands of steps. */
const REDRAW_MS = 100;

/** `label [#####.....]  12/40` */
export function renderBar(label: string, done: number, total: number, width = WIDTH): string {
  const share = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(share * width);
  return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(done).padStart(String(total).length)}/${total}`;
}

export function progressBar(stream: NodeJS.WriteStream, label: string, opts: { enabled: boolean }): Progress {
  const drawing = opts.enabled && stream.isTTY === true;
  let last = 0;
  let line = '';
  let remark = '';
  let drawn = false;
  const draw = () => {
    drawn = true;
    stream.write(`\r\x1b[K${line}${remark ? `  ${remark}` : ''}`);
  };
  return {
    update(done, total) {
      if (!drawing) return;
      line = renderBar(label, done, total);
      remark = '';
      const now = Date.now();
      if (now - last < REDRAW_MS && done < total) return;
      last = now;
      draw();
    },
    note(text) {
      if (!drawing) {
        stream.write(`checkd: ${text}\n`);
        return;
      }
      remark = text;
      draw();
    },
    end() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}
