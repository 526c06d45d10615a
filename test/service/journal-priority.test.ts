// Under systemd, log lines carry their syslog priority (`<3>` for an error) so
// that `journalctl -u checkd -p err` finds them (operations.md, Logs); anywhere
// else they stay plain JSON lines.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { withPriority, writesToJournal } from '../../daemon/shared/log.js';
import { setupSuite } from '../helpers/cleanup.js';
import { CHECKD_BIN } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

let tmp: string;
setupSuite(() => {
  tmp = tempDir('checkd-journal-');
});

describe('withPriority', () => {
  it('puts the syslog priority of the pino level in front', () => {
    const line = (level: number) => `{"level":${level},"time":"2026-11-24T00:00:00.000Z","msg":"m"}\n`;
    expect(withPriority(line(10))).toBe('<7>' + line(10));
    expect(withPriority(line(20))).toBe('<7>' + line(20));
    expect(withPriority(line(30))).toBe('<6>' + line(30));
    expect(withPriority(line(40))).toBe('<4>' + line(40));
    expect(withPriority(line(50))).toBe('<3>' + line(50));
    expect(withPriority(line(60))).toBe('<2>' + line(60));
    expect(withPriority('not a pino line\n')).toBe('not a pino line\n');
  });
});

describe('writesToJournal', () => {
  it('only when JOURNAL_STREAM names the very file the descriptor is', () => {
    const file = join(tmp, 'stream');
    const fd = openSync(file, 'w');
    onTestFinished(() => closeSync(fd));
    const st = statSync(file);
    expect(writesToJournal(fd, { JOURNAL_STREAM: `${st.dev}:${st.ino}` })).toBe(true);
    expect(writesToJournal(fd, { JOURNAL_STREAM: `${st.dev}:${st.ino + 1}` })).toBe(false);
    expect(writesToJournal(fd, {})).toBe(false);
  });
});

describe('checkd serve', () => {
  it('prefixes its lines when stderr is the journal stream, not otherwise', async () => {
    const run = async (journal: boolean) => {
      const file = join(tmp, `stderr-${journal}`);
      const fd = openSync(file, 'w');
      const st = statSync(file);
      const env: NodeJS.ProcessEnv = { ...process.env, CHECKD_LOG_LEVEL: 'info' };
      delete env.JOURNAL_STREAM;
      if (journal) env.JOURNAL_STREAM = `${st.dev}:${st.ino}`;
      const proc = spawn(
        process.execPath,
        [CHECKD_BIN, 'serve', '--data-dir', join(tmp, `data-${journal}`), '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0'],
        { env, stdio: ['ignore', 'pipe', fd] },
      );
      closeSync(fd);
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('checkd ready')) proc.kill('SIGTERM');
      });
      const [code] = await once(proc, 'exit');
      expect(code).toBe(0);
      return readFileSync(file, 'utf8').trim().split('\n');
    };
    const journalLines = await run(true);
    expect(journalLines.length).toBeGreaterThan(2);
    expect(journalLines.some((l) => l.startsWith('<6>{"level":30'))).toBe(true);
    for (const line of journalLines) {
      const m = /^<(\d)>(\{.*\})$/.exec(line);
      expect(m, line).not.toBeNull();
      const level = JSON.parse(m![2]!).level as number;
      expect(m![1], line).toBe({ 10: '7', 20: '7', 30: '6', 40: '4', 50: '3', 60: '2' }[level]);
    }
    for (const line of await run(false)) expect(JSON.parse(line).level).toBeGreaterThanOrEqual(30);
  });
});
