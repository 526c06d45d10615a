// checktop's root component: wires the backend's Watch into the reducer, keeps
// the view state (filter, cursor, open view, prompts) and maps keys to it.
// Everything decidable without a terminal lives in state.ts.
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { Box, useApp, useInput, useStdout, type Key } from 'ink';
import { CheckTable, tableColumns } from './components/CheckTable.js';
import { DetailView } from './components/DetailView.js';
import { ConfirmPrompt, filterSummary, HintsLine, MessageLine, SearchPrompt } from './components/Footer.js';
import { Header } from './components/Header.js';
import { HelpView } from './components/HelpView.js';
import { describeGrpcError } from './rpc.js';
import { initialState, isFlashing, reducer, serverNow } from './state.js';
import type { Row } from './row.js';
import { moveSelection, resolveIndex, scrollTop, selectIndex, type Selection } from './selection.js';
import { allTags, countRows, cycle, isFiltered, NO_FILTER, STATUS_FILTERS, tagCycle, visibleRows, type Filter } from './views.js';
import type { CheckdBackend } from './watch-client.js';
import type { CheckDetailMsg, WatchEventMsg } from './wire.js';

/** Pings and flips asked for in the detail view: more than any terminal shows. */
const DETAIL_LIMIT = 100;
const MESSAGE_MS = 4000;

/** One Key per character of a coalesced read; Enter and Backspace keep their meaning. */
export function splitKeys(input: string, base: Key): [string, Key][] {
  return Array.from(input, (ch): [string, Key] => {
    const k: Key = { ...base, return: false, backspace: false, delete: false, shift: /[A-Z]/.test(ch) };
    if (ch === '\r' || ch === '\n') return ['', { ...k, return: true }];
    if (ch === '\x7f') return ['', { ...k, delete: true }];
    if (ch === '\b') return ['', { ...k, backspace: true }];
    return [ch, k];
  });
}

export interface Size {
  columns: number;
  rows: number;
}

export interface AppProps {
  backend: CheckdBackend;
  /** The local clock; tests pass a fixed one. */
  clock?: () => number;
  /** How often statuses are recomputed and "ago" columns advance. */
  tickMs?: number;
  /** A fixed terminal size (tests); by default the terminal's, following resizes. */
  size?: Size;
}

function useTerminalSize(fixed: Size | undefined): Size {
  const { stdout } = useStdout();
  const read = useCallback((): Size => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 }), [stdout]);
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (fixed) return;
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, fixed, read]);
  return fixed ?? size;
}

type Overlay =
  | null
  | { kind: 'help' }
  | { kind: 'search' }
  | { kind: 'confirm'; action: 'pause' | 'resume'; id: string; name: string };

interface Message {
  text: string;
  tone: 'info' | 'error';
  until: number;
}

interface DetailState {
  id: string;
  data: CheckDetailMsg | null;
  error: string | null;
}

/** The shortest time between two batches of Watch events applied: ten frames a second at most. */
export const EVENT_FRAME_MS = 100;

export function App({ backend, clock = Date.now, tickMs = 1000, size: fixedSize }: AppProps) {
  const { exit } = useApp();
  const size = useTerminalSize(fixedSize);
  const [state, dispatch] = useReducer(reducer, clock(), initialState);
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const [selection, setSelection] = useState<Selection>({ id: null, index: 0 });
  const [view, setView] = useState<'list' | 'detail'>('list');
  const [overlay, setOverlay] = useState<Overlay>(null);
  const [message, setMessage] = useState<Message | null>(null);
  const [detail, setDetail] = useState<DetailState | null>(null);
  const topRef = useRef(0);
  // Read through a ref so that a new clock function never resubscribes the Watch.
  const clockRef = useRef(clock);
  clockRef.current = clock;

  // The Watch: events are queued and applied in batches, at most one per
  // frame (EVENT_FRAME_MS), so a stream of pings costs a few sorts and frames
  // a second, not one each: on a project of 100,000 checks each costs ~8 ms.
  // The first event after a quiet frame is applied on the next turn.
  useEffect(() => {
    let queue: WatchEventMsg[] = [];
    // Each kind cleared by its own function: clearImmediate given a Timeout
    // would miscount Node's pending immediates.
    let timer: { kind: 'timeout'; handle: NodeJS.Timeout } | { kind: 'immediate'; handle: NodeJS.Immediate } | null = null;
    let lastFlush = -Infinity;
    const cancel = () => {
      if (timer?.kind === 'timeout') clearTimeout(timer.handle);
      else if (timer?.kind === 'immediate') clearImmediate(timer.handle);
      timer = null;
    };
    const flush = () => {
      cancel();
      if (queue.length === 0) return;
      lastFlush = performance.now();
      const events = queue;
      queue = [];
      dispatch({ type: 'events', events, now: clockRef.current() });
    };
    const unsubscribe = backend.subscribe((update) => {
      if (update.type === 'event') {
        queue.push(update.event);
        if (timer === null) {
          const wait = lastFlush + EVENT_FRAME_MS - performance.now();
          timer = wait > 0 ? { kind: 'timeout', handle: setTimeout(flush, wait) } : { kind: 'immediate', handle: setImmediate(flush) };
        }
        return;
      }
      flush(); // keep order: events received before a state change are applied first
      if (update.type === 'project') dispatch({ type: 'project', project: update.project });
      else dispatch({ type: 'connection', connection: update.connection });
    });
    return () => {
      unsubscribe();
      cancel();
      queue = [];
    };
  }, [backend]);

  useEffect(() => {
    const timer = setInterval(() => dispatch({ type: 'tick', now: clockRef.current() }), tickMs);
    return () => clearInterval(timer);
  }, [tickMs]);

  const visible = useMemo(() => visibleRows(state.rows, filter), [state.rows, filter]);
  const counts = useMemo(() => countRows(state.rows), [state.rows]);
  const tags = useMemo(() => allTags(state.rows), [state.rows]);

  // Layout: Ink leaves the line under its output to the cursor, so the app
  // takes rows - 1 lines; two header lines, one footer, the table's own header.
  const height = Math.max(6, size.rows - 1);
  const bodyHeight = height - 3;
  const tableHeight = bodyHeight - 1;
  const cols = tableColumns(size.columns);
  const index = resolveIndex(visible, selection);
  const top = scrollTop(topRef.current, index, tableHeight, visible.length);
  topRef.current = top;
  const selectedRow: Row | null = index >= 0 ? visible[index]! : null;
  // The cursor follows a check, also before the first key is pressed and after
  // its check left the view (deleted, filtered out): it takes the one under it.
  useEffect(() => {
    if (selectedRow && selectedRow.id !== selection.id) setSelection({ id: selectedRow.id, index });
  }, [selectedRow, selection.id, index]);
  const now = state.now;
  const sNow = serverNow(state, now);

  const detailId = view === 'detail' ? (detail?.id ?? null) : null;
  const detailRow = detailId ? (state.rows.get(detailId) ?? null) : null;
  const live = state.connection.state === 'live';

  // Details are fetched on open and again shortly after the Watch reports a
  // change to that check (a new ping or flip), or once the link is back.
  useEffect(() => {
    if (!detailId || !live) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      backend.getCheck(detailId, DETAIL_LIMIT).then(
        (data) => !cancelled && setDetail((d) => (d?.id === detailId ? { id: detailId, data, error: null } : d)),
        (err: unknown) =>
          !cancelled && setDetail((d) => (d?.id === detailId ? { ...d, error: describeGrpcError(err) } : d)),
      );
    }, 100);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [backend, detailId, detailRow?.check, live]);

  const say = useCallback(
    (text: string, tone: 'info' | 'error' = 'info') => setMessage({ text, tone, until: clock() + MESSAGE_MS }),
    [clock],
  );

  const openDetail = (row: Row | null) => {
    if (!row) return;
    setDetail((d) => (d?.id === row.id ? d : { id: row.id, data: null, error: null }));
    setView('detail');
  };

  const askAction = (action: 'pause' | 'resume', row: Row | null) => {
    if (!row) return;
    if (state.project?.read_only) return say('this API key is read-only: pause and resume need a read-write key', 'error');
    const paused = row.check.stored_status === 'paused';
    if (action === 'pause' && paused) return say(`${row.check.name} is already paused`, 'error');
    if (action === 'resume' && !paused) return say(`${row.check.name} is not paused`, 'error');
    setOverlay({ kind: 'confirm', action, id: row.id, name: row.check.name });
  };

  const runAction = (action: 'pause' | 'resume', id: string, name: string) => {
    const call = action === 'pause' ? backend.pauseCheck(id) : backend.resumeCheck(id);
    say(`${action === 'pause' ? 'pausing' : 'resuming'} ${name}…`);
    call.then(
      (check) => {
        // Shown at once; the Watch event that follows says the same.
        dispatch({ type: 'check', check, now: clock() });
        say(`${action === 'pause' ? 'paused' : 'resumed'} ${name}`);
      },
      (err: unknown) => say(`${action} failed: ${describeGrpcError(err)}`, 'error'),
    );
  };

  const move = (delta: number) => {
    const next = moveSelection(visible, selection, delta);
    setSelection(next);
    if (view === 'detail' && next.id) openDetail(visible[next.index] ?? null);
  };

  const onKey = (input: string, key: Key) => {
    if (key.ctrl && input === 'c') return exit();

    if (overlay?.kind === 'search') {
      if (key.escape) {
        setFilter((f) => ({ ...f, text: '' }));
        setOverlay(null);
      } else if (key.return) setOverlay(null);
      else if (key.backspace || key.delete) setFilter((f) => ({ ...f, text: f.text.slice(0, -1) }));
      else if (key.ctrl && input === 'u') setFilter((f) => ({ ...f, text: '' }));
      else if (key.upArrow || key.downArrow) move(key.upArrow ? -1 : 1);
      else if (input && !key.ctrl && !key.meta && !key.tab) setFilter((f) => ({ ...f, text: f.text + input }));
      return;
    }
    if (overlay?.kind === 'confirm') {
      if (input === 'y' || input === 'Y') {
        setOverlay(null);
        runAction(overlay.action, overlay.id, overlay.name);
      } else if (input === 'n' || input === 'N' || key.escape || input === 'q') {
        setOverlay(null);
        say('cancelled');
      }
      return;
    }
    if (overlay?.kind === 'help') {
      if (input === 'q') return exit();
      setOverlay(null);
      return;
    }

    setMessage(null);
    if (input === 'q') return exit();
    if (input === '?') return setOverlay({ kind: 'help' });

    if (view === 'detail') {
      if (key.escape || key.backspace || key.delete || key.leftArrow || input === 'h') setView('list');
      else if (key.upArrow || input === 'k') move(-1);
      else if (key.downArrow || input === 'j') move(1);
      else if (input === 'p') askAction('pause', detailRow);
      else if (input === 'r') askAction('resume', detailRow);
      return;
    }

    if (key.upArrow || input === 'k') move(-1);
    else if (key.downArrow || input === 'j') move(1);
    else if (key.pageUp || (key.ctrl && input === 'b')) move(-tableHeight);
    else if (key.pageDown || (key.ctrl && input === 'f') || input === ' ') move(tableHeight);
    else if (key.home || input === 'g') setSelection(selectIndex(visible, 0));
    else if (key.end || input === 'G') setSelection(selectIndex(visible, visible.length - 1));
    else if (key.return || key.rightArrow || input === 'l') openDetail(selectedRow);
    else if (input === '/') setOverlay({ kind: 'search' });
    else if (input === 't' || input === 'T') setFilter((f) => ({ ...f, tag: tagCycle(tags, f.tag, input === 't' ? 1 : -1) }));
    else if (input === 's' || input === 'S') setFilter((f) => ({ ...f, status: cycle(STATUS_FILTERS, f.status, input === 's' ? 1 : -1) }));
    else if (key.escape && isFiltered(filter)) setFilter(NO_FILTER);
    else if (input === 'p') askAction('pause', selectedRow);
    else if (input === 'r') askAction('resume', selectedRow);
  };

  // Keys are queued and handled one per commit, each in an effect after the
  // render that the previous key caused, so every key sees the state all
  // earlier keys produced. Handling them straight in Ink's callback would use
  // the last render's closures: keys typed quickly, or arriving in one read
  // over SSH ("jj", "/db⏎", which Ink hands over as one string), got lost.
  const onKeyRef = useRef(onKey);
  onKeyRef.current = onKey;
  const keyQueue = useRef<[string, Key][]>([]);
  const [keyTurn, setKeyTurn] = useState(0);
  useInput(
    useCallback((input: string, key: Key) => {
      if (input.length > 1 && !key.ctrl && !key.meta) keyQueue.current.push(...splitKeys(input, key));
      else keyQueue.current.push([input, key]);
      setKeyTurn((t) => t + 1);
    }, []),
  );
  // A layout effect runs right after the commit, before anything else can happen.
  useLayoutEffect(() => {
    const next = keyQueue.current.shift();
    if (!next) return;
    onKeyRef.current(next[0], next[1]);
    // The next key after this one's render; setImmediate rather than a nested
    // update, so a long paste cannot hit React's nested-update limit.
    if (keyQueue.current.length > 0) setImmediate(() => setKeyTurn((t) => t + 1));
  }, [keyTurn]);

  const emptyText = !state.synced
    ? 'loading…'
    : state.rows.size === 0
      ? 'no checks in this project yet'
      : 'no check matches the filter (esc clears it)';

  let footer;
  if (overlay?.kind === 'search') footer = <SearchPrompt text={filter.text} />;
  else if (overlay?.kind === 'confirm')
    footer = <ConfirmPrompt question={`${overlay.action === 'pause' ? 'Pause' : 'Resume'} check "${overlay.name}"?`} />;
  else if (message && message.until > now) footer = <MessageLine text={message.text} tone={message.tone} />;
  else
    footer = (
      <HintsLine view={view} summary={filterSummary(filter)} shown={visible.length} total={state.rows.size} width={size.columns} />
    );

  let body;
  if (overlay?.kind === 'help') body = <HelpView height={bodyHeight} />;
  else if (view === 'detail')
    body = (
      <DetailView
        row={detailRow}
        detail={detail?.data ?? null}
        error={detail?.error ?? null}
        width={size.columns}
        height={bodyHeight}
        now={sNow}
      />
    );
  else
    body = (
      <CheckTable
        rows={visible.slice(top, top + tableHeight)}
        selected={index - top}
        cols={cols}
        height={tableHeight}
        now={sNow}
        isFlashing={(id) => isFlashing(state, id, now)}
        empty={emptyText}
      />
    );

  return (
    <Box flexDirection="column" width={size.columns} height={height}>
      <Header
        projectName={state.project?.name ?? null}
        readOnly={state.project?.read_only ?? false}
        connection={state.connection}
        counts={counts}
        now={now}
        width={size.columns}
      />
      {body}
      <Box flexGrow={1} />
      {footer}
    </Box>
  );
}
