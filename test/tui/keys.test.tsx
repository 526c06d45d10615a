// The key table (tui/keys.ts) and what reads it: input handling, the help
// screen, the footer and the key list of docs/checktop.md.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import type { Key } from 'ink';
import { App } from '../../tui/app.js';
import { actionFor, BINDINGS, footerHints, helpLines, isKeyName, shortName, type Mode } from '../../tui/keys.js';
import { waitFor } from '../helpers/wait.js';
import { FakeBackend } from './fake-backend.js';
import { check, T0 } from './fixtures.js';

const MODES: Mode[] = ['list', 'detail', 'pings', 'flips', 'pager', 'search', 'confirm', 'help'];
const plain = (s: string | undefined) => (s ?? '').replace(/\x1b\[[0-9;]*m/g, '');

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};
const key = (k: Partial<Key>): Key => ({ ...NO_KEY, ...k });

afterEach(() => cleanup());

describe('the key table', () => {
  it('names only keys it can match, and binds no key twice in one mode', () => {
    for (const b of BINDINGS) for (const k of b.keys) expect(isKeyName(k), k).toBe(true);
    for (const mode of MODES) {
      const keys = BINDINGS.filter((b) => b.modes.includes(mode)).flatMap((b) => b.keys);
      expect(keys.filter((k, i) => keys.indexOf(k) !== i), mode).toEqual([]);
    }
  });

  it('gives every key the action of its row in each of its modes', () => {
    const asInk: Record<string, [string, Partial<Key>]> = {
      '↑': ['', { upArrow: true }],
      '↓': ['', { downArrow: true }],
      '←': ['', { leftArrow: true }],
      '→': ['', { rightArrow: true }],
      PgUp: ['', { pageUp: true }],
      PgDn: ['', { pageDown: true }],
      Home: ['', { home: true }],
      End: ['', { end: true }],
      Enter: ['\r', { return: true }],
      Esc: ['', { escape: true, meta: true }],
      Backspace: ['', { delete: true }],
      Space: [' ', {}],
      Tab: ['\t', { tab: true }],
    };
    for (const b of BINDINGS) {
      for (const name of b.keys) {
        const [input, k] = asInk[name] ?? (name.startsWith('Ctrl-') ? [name.slice(5).toLowerCase(), { ctrl: true }] : [name, {}]);
        for (const mode of b.modes) expect(actionFor(mode, input, key(k)), `${name} in ${mode}`).toBe(b.action);
      }
    }
    // Both codes terminals send for Backspace.
    expect(actionFor('detail', '', key({ backspace: true }))).toBe('back');
  });

  it('leaves unbound keys to the mode: text in a search, closing help, nothing elsewhere', () => {
    expect(actionFor('search', 'k', key({}))).toBe('type');
    expect(actionFor('search', 'q', key({}))).toBe('type');
    expect(actionFor('search', 'u', key({ ctrl: true }))).toBe('eraseSearch');
    expect(actionFor('search', 'x', key({ ctrl: true }))).toBe(null);
    expect(actionFor('help', 'x', key({}))).toBe('closeHelp');
    expect(actionFor('help', '?', key({}))).toBe('closeHelp');
    expect(actionFor('help', 'q', key({}))).toBe('quit');
    expect(actionFor('confirm', 'q', key({}))).toBe('no');
    expect(actionFor('confirm', 'x', key({}))).toBe(null);
    expect(actionFor('list', 'x', key({}))).toBe(null);
    expect(actionFor('list', 'h', key({}))).toBe(null);
    for (const mode of MODES) expect(actionFor(mode, 'c', key({ ctrl: true }))).toBe('quit');
  });

  it('gives the footer the hints it always showed, each starting with a key of its row', () => {
    expect(footerHints('list').join('  ')).toBe('↑↓ move  ⏎ details  / search  t tag  s status  p pause  r resume  ? help  q quit');
    expect(footerHints('detail').join('  ')).toBe('esc back  ↑↓ prev/next check  p pause  r resume  ? help  q quit');
    expect(footerHints('filtered')).toEqual(['esc clears', '? help', 'q quit']);
    expect(footerHints('search').join('  ')).toBe('⏎ keep  esc clear');
    expect(footerHints('confirm')).toEqual(['y/n']);
    for (const b of BINDINGS) {
      for (const hint of Object.values(b.footer ?? {})) expect(b.keys.some((k) => hint.startsWith(shortName(k))), hint).toBe(true);
    }
  });

  it('is the key list of docs/checktop.md', () => {
    const doc = readFileSync(new URL('../../docs/checktop.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### Keys'));
    const table = section.slice(section.indexOf('\n|'), section.indexOf('\n\n', section.indexOf('\n|')));
    const rows = table
      .trim()
      .split('\n')
      .slice(2) // the header and its rule
      .map((line) => {
        const [keys, text] = line.split('|').slice(1, -1).map((cell) => cell.trim());
        return { keys: [...keys!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), text: text! };
      });
    expect(rows).toEqual(helpLines());
  });

  it('is all on the help screen at 80x24: every binding, its keys on the line of its text', async () => {
    const ui = render(<App backend={new FakeBackend([check()])} clock={() => T0} tickMs={60_000} size={{ columns: 80, rows: 24 }} />);
    const frame = () => plain(ui.lastFrame());
    await waitFor(() => frame().includes('check-'), { timeout: 2000, interval: 10, what: 'the table' });
    ui.stdin.write('?');
    await waitFor(() => frame().includes('Keys'), { timeout: 2000, interval: 10, what: 'the help screen' });
    const lines = frame().split('\n');
    for (const b of BINDINGS) {
      const line = lines.find((l) => l.trimEnd().endsWith(b.help));
      expect(line, b.help).toBeDefined();
      for (const k of b.keys) expect(line!.split(/\s+/), `${k} for ${b.help}`).toContain(k);
    }
    expect(frame()).toContain('A status that just changed is highlighted for 5 s.');
  });
});
