// checktop's keys: one table that input handling, the help screen, the footer
// hints and the key list in docs/checktop.md all read (the docs are checked
// against it by test/tui/keys.test.tsx).
import type { Key } from 'ink';

/**
 * Where a key is read: the check list; one check's details, with the check,
 * its ping list or its flips in focus; a ping's body in the pager; or a
 * prompt over them.
 */
export type Mode = 'list' | 'detail' | 'pings' | 'flips' | 'pager' | 'search' | 'confirm' | 'help';

/** The footer lines that show hints: a mode's, and the list's while a filter is on. */
export type HintLine = Exclude<Mode, 'help'> | 'filtered';

export type Action =
  | 'up'
  | 'down'
  | 'pageUp'
  | 'pageDown'
  | 'first'
  | 'last'
  | 'open'
  | 'output'
  | 'openBody'
  | 'focusNext'
  | 'windowNext'
  | 'windowPrev'
  | 'back'
  | 'clearFilters'
  | 'search'
  | 'keepSearch'
  | 'clearSearch'
  | 'eraseChar'
  | 'eraseSearch'
  | 'type'
  | 'nextTag'
  | 'prevTag'
  | 'nextStatus'
  | 'prevStatus'
  | 'nextSort'
  | 'prevSort'
  | 'reverseSort'
  | 'nextProject'
  | 'prevProject'
  | 'project'
  | 'pause'
  | 'resume'
  | 'yes'
  | 'no'
  | 'help'
  | 'closeHelp'
  | 'quit';

export interface Binding {
  /** Key names (see matches): a named key, Ctrl-<letter>, or one character. */
  keys: readonly string[];
  modes: readonly Mode[];
  action: Action;
  /** What help and the docs say; bindings with the same text share one line there. */
  help: string;
  /** The hint in each footer line that shows one, in table order; it starts with one of `keys` (shortName). */
  footer?: Partial<Record<HintLine, string>>;
}

const MOVE = 'move the cursor (details: previous / next check)';
const BACK = 'back; on the list, clear the filters';
const PAGE = 'a page up / down';
const ENDS = 'first / last';
const OPEN = 'open: details, their output, a ping\'s body';
const WINDOW = 'history window: all, 1h, 24h, 7d, 30d';
const HISTORY = ['pings', 'flips'] as const;
const SCROLLS = ['list', ...HISTORY, 'pager'] as const;
const IN_SEARCH = 'in a search: keep, clear, erase one / all';
const FILTER = 'filter by tag (t T), by status (s S)';
const SORT = 'sort: next / previous order, reverse it';
const PROJECTS = 'projects: previous / next, or by number';
const ANSWER = 'at a y/n question: yes / no';
const QUIT = 'quit';

export const BINDINGS: readonly Binding[] = [
  {
    keys: ['Esc', '←', 'h', 'Backspace'],
    modes: ['detail', ...HISTORY, 'pager'],
    action: 'back',
    help: BACK,
    footer: { detail: 'esc back', pings: 'esc back', flips: 'esc back', pager: 'esc close' },
  },
  // The pager closes on q as less does.
  { keys: ['q'], modes: ['pager'], action: 'back', help: BACK },
  { keys: ['Esc'], modes: ['list'], action: 'clearFilters', help: BACK, footer: { filtered: 'esc clears' } },
  {
    keys: ['↑', 'k'],
    modes: ['list', 'detail', ...HISTORY, 'pager'],
    action: 'up',
    help: MOVE,
    footer: { list: '↑↓ move', detail: '↑↓ prev/next check', pings: '↑↓ ping', flips: '↑↓ scroll', pager: '↑↓ scroll' },
  },
  { keys: ['↓', 'j'], modes: ['list', 'detail', ...HISTORY, 'pager'], action: 'down', help: MOVE },
  // In a search, letters are text.
  { keys: ['↑'], modes: ['search'], action: 'up', help: MOVE },
  { keys: ['↓'], modes: ['search'], action: 'down', help: MOVE },
  { keys: ['PgUp', 'Ctrl-B'], modes: SCROLLS, action: 'pageUp', help: PAGE },
  { keys: ['PgDn', 'Ctrl-F', 'Space'], modes: SCROLLS, action: 'pageDown', help: PAGE, footer: { pager: 'space page' } },
  { keys: ['Home', 'g'], modes: SCROLLS, action: 'first', help: ENDS },
  { keys: ['End', 'G'], modes: SCROLLS, action: 'last', help: ENDS },
  { keys: ['Enter', '→', 'l'], modes: ['list'], action: 'open', help: OPEN, footer: { list: '⏎ details' } },
  { keys: ['Enter'], modes: ['detail'], action: 'output', help: OPEN },
  { keys: ['Enter'], modes: ['pings'], action: 'openBody', help: OPEN, footer: { pings: '⏎ body' } },
  {
    keys: ['Tab'],
    modes: ['detail', ...HISTORY],
    action: 'focusNext',
    help: 'details: focus the check, pings, flips',
    footer: { pings: 'tab flips', flips: 'tab check' },
  },
  { keys: ['w'], modes: ['detail', ...HISTORY], action: 'windowNext', help: WINDOW, footer: { pings: 'w window', flips: 'w window' } },
  { keys: ['W'], modes: ['detail', ...HISTORY], action: 'windowPrev', help: WINDOW },
  { keys: ['/'], modes: ['list'], action: 'search', help: 'search name, slug and tags as you type', footer: { list: '/ search' } },
  { keys: ['Enter'], modes: ['search'], action: 'keepSearch', help: IN_SEARCH, footer: { search: '⏎ keep' } },
  { keys: ['Esc'], modes: ['search'], action: 'clearSearch', help: IN_SEARCH, footer: { search: 'esc clear' } },
  { keys: ['Backspace'], modes: ['search'], action: 'eraseChar', help: IN_SEARCH },
  { keys: ['Ctrl-U'], modes: ['search'], action: 'eraseSearch', help: IN_SEARCH },
  { keys: ['t'], modes: ['list'], action: 'nextTag', help: FILTER, footer: { list: 't tag' } },
  { keys: ['T'], modes: ['list'], action: 'prevTag', help: FILTER },
  { keys: ['s'], modes: ['list'], action: 'nextStatus', help: FILTER, footer: { list: 's status' } },
  { keys: ['S'], modes: ['list'], action: 'prevStatus', help: FILTER },
  { keys: ['o'], modes: ['list'], action: 'nextSort', help: SORT },
  { keys: ['O'], modes: ['list'], action: 'prevSort', help: SORT },
  // I, as htop inverts its order.
  { keys: ['I'], modes: ['list'], action: 'reverseSort', help: SORT },
  { keys: ['['], modes: ['list'], action: 'prevProject', help: PROJECTS },
  { keys: [']'], modes: ['list'], action: 'nextProject', help: PROJECTS },
  { keys: ['1', '2', '3', '4', '5', '6', '7', '8', '9'], modes: ['list'], action: 'project', help: PROJECTS },
  {
    keys: ['p'],
    modes: ['list', 'detail'],
    action: 'pause',
    help: 'pause the selected check (asks y/n)',
    footer: { list: 'p pause', detail: 'p pause' },
  },
  {
    keys: ['r'],
    modes: ['list', 'detail'],
    action: 'resume',
    help: 'resume the selected check (asks y/n)',
    footer: { list: 'r resume', detail: 'r resume' },
  },
  { keys: ['y', 'Y'], modes: ['confirm'], action: 'yes', help: ANSWER, footer: { confirm: 'y/n' } },
  { keys: ['n', 'N', 'Esc', 'q'], modes: ['confirm'], action: 'no', help: ANSWER },
  {
    keys: ['?'],
    modes: ['list', 'detail', ...HISTORY, 'pager'],
    action: 'help',
    help: 'this help; any other key closes it',
    footer: { list: '? help', filtered: '? help', detail: '? help', pings: '? help', flips: '? help', pager: '? help' },
  },
  {
    keys: ['q'],
    modes: ['list', 'detail', ...HISTORY, 'help'],
    action: 'quit',
    help: QUIT,
    footer: { list: 'q quit', filtered: 'q quit', detail: 'q quit', pings: 'q quit', flips: 'q quit' },
  },
  { keys: ['Ctrl-C'], modes: ['list', 'detail', ...HISTORY, 'pager', 'search', 'confirm', 'help'], action: 'quit', help: QUIT },
];

/** What a key with no binding does: a search takes it as text, the help screen closes; elsewhere nothing. */
function otherKey(mode: Mode, input: string, key: Key): Action | null {
  if (mode === 'search') return input && !key.ctrl && !key.meta && !key.tab ? 'type' : null;
  if (mode === 'help') return 'closeHelp';
  return null;
}

const NAMED_KEYS: Record<string, (input: string, key: Key) => boolean> = {
  '↑': (_, k) => k.upArrow,
  '↓': (_, k) => k.downArrow,
  '←': (_, k) => k.leftArrow,
  '→': (_, k) => k.rightArrow,
  PgUp: (_, k) => k.pageUp,
  PgDn: (_, k) => k.pageDown,
  Home: (_, k) => k.home,
  End: (_, k) => k.end,
  Enter: (_, k) => k.return,
  Esc: (_, k) => k.escape,
  // Terminals send either for the key marked Backspace.
  Backspace: (_, k) => k.backspace || k.delete,
  Tab: (_, k) => k.tab && !k.shift,
  Space: (input) => input === ' ',
};

/** Whether `name` is a key name the table may use. */
export function isKeyName(name: string): boolean {
  return name in NAMED_KEYS || /^Ctrl-[A-Z]$/.test(name) || Array.from(name).length === 1;
}

/** Does the key Ink reported as (input, key) have this name? A character matches with or without modifiers. */
export function matches(name: string, input: string, key: Key): boolean {
  const named = NAMED_KEYS[name];
  if (named) return named(input, key);
  if (name.startsWith('Ctrl-')) return key.ctrl && input === name.slice(5).toLowerCase();
  return input === name;
}

/** The action of a key in `mode`, or null when it does nothing there. */
export function actionFor(mode: Mode, input: string, key: Key): Action | null {
  for (const b of BINDINGS) {
    if (b.modes.includes(mode) && b.keys.some((name) => matches(name, input, key))) return b.action;
  }
  return otherKey(mode, input, key);
}

const SHORT_NAMES: Record<string, string> = { Enter: '⏎', Esc: 'esc', Tab: 'tab', Space: 'space' };

/** How the footer writes a key: the glyph where one is shorter. */
export function shortName(name: string): string {
  return SHORT_NAMES[name] ?? name;
}

/** What a read-only key cannot do: the footer does not offer it. */
const NEEDS_WRITE: readonly Action[] = ['pause', 'resume'];

/** The hints of one footer line, in table order; with a read-only key, none for what it cannot do. */
export function footerHints(line: HintLine, opts: { readOnly?: boolean } = {}): string[] {
  return BINDINGS.flatMap((b) => (b.footer?.[line] && !(opts.readOnly && NEEDS_WRITE.includes(b.action)) ? [b.footer[line]] : []));
}

export interface HelpLine {
  /** Key names, in table order, each once. */
  keys: string[];
  text: string;
}

/** The help screen's lines, which the docs' key table repeats: the bindings grouped by help text. */
export function helpLines(): HelpLine[] {
  const lines = new Map<string, HelpLine>();
  for (const b of BINDINGS) {
    const line = lines.get(b.help) ?? { keys: [], text: b.help };
    lines.set(b.help, line);
    for (const k of b.keys) if (!line.keys.includes(k)) line.keys.push(k);
  }
  return [...lines.values()];
}
