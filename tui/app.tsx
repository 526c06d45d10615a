// checktop's root component: composes the hooks that feed it (terminal size,
// Watch, clock, keys, details, messages), keeps the view state (filter,
// cursor, open view, focus, pager, prompt) and says what each action of the
// key table does. Everything decidable without a terminal lives in the
// modules it imports.
import { useCallback, useEffect, useMemo, useReducer, useRef, useState, type Dispatch } from 'react';
import { Box, useApp, type Key } from 'ink';
import { CheckTable, contentWidths, tableColumns, WIDE } from './components/CheckTable.js';
import { detailLayout, DetailView, type DetailData, type Focus } from './components/DetailView.js';
import { ConfirmPrompt, filterSummary, HintsLine, MessageLine, SearchPrompt } from './components/Footer.js';
import { Header } from './components/Header.js';
import { HelpView } from './components/HelpView.js';
import { Pager, pagerRows } from './components/Pager.js';
import { dateTime, exitText } from './format.js';
import { mayHaveMore, mergeFlips, mergePings, outputPing } from './history.js';
import { useClockTick } from './hooks/useClockTick.js';
import { useCursor } from './hooks/useCursor.js';
import { DETAIL_LIMIT, useDetailLoading } from './hooks/useDetailLoading.js';
import { useKeyQueue } from './hooks/useKeyQueue.js';
import { useMessage } from './hooks/useMessage.js';
import { useOlderHistory } from './hooks/useOlderHistory.js';
import { usePauseResume, refusal, type PauseOrResume } from './hooks/usePauseResume.js';
import { usePingBody } from './hooks/usePingBody.js';
import { useTerminalSize, type Size } from './hooks/useTerminalSize.js';
import { useWatchBatches } from './hooks/useWatchBatches.js';
import { actionFor, type Action, type Mode } from './keys.js';
import type { Row } from './row.js';
import { scrollTop } from './selection.js';
import { initialProjects, projectsReducer } from './projects.js';
import { asOf, isFlashing, serverNow, type Action as StateAction } from './state.js';
import { SORT_KEYS, sortLabel } from './sort.js';
import { WINDOWS } from './timeline.js';
import { allTags, countRows, cycle, isFiltered, NO_FILTER, STATUS_FILTERS, tagCycle, visibleRows, type Filter } from './views.js';
import type { CheckdBackend } from './watch-client.js';
import type { PingMsg } from './wire.js';

export interface AppProps {
  /** One project's daemon; or `backends`, one per project. */
  backend?: CheckdBackend;
  /** Several projects, each watched all the time; the first is shown first. */
  backends?: readonly CheckdBackend[];
  /** The local clock; tests pass a fixed one. */
  clock?: () => number;
  /** How often statuses are recomputed and "ago" columns advance. */
  tickMs?: number;
  /** A fixed terminal size (tests); by default the terminal's, following resizes. */
  size?: Size;
}

type Overlay = null | { kind: 'help' } | { kind: 'search' } | { kind: 'confirm'; action: PauseOrResume; id: string; name: string };

/** The body on the whole screen: whose, and from which line. */
interface PagerState {
  checkId: string;
  ping: PingMsg;
  top: number;
}

function modeOf(view: 'list' | 'detail', focus: Focus, pager: PagerState | null, overlay: Overlay): Mode {
  if (overlay) return overlay.kind;
  if (pager) return 'pager';
  if (view === 'list') return 'list';
  return focus === 'check' ? 'detail' : focus;
}

const FOCUS_ORDER: readonly Focus[] = ['check', 'pings', 'flips'];

/** Keeps one project's state live from its Watch, whichever project is on screen. Draws nothing. */
function ProjectFeed({ backend, dispatch, clock }: { backend: CheckdBackend; dispatch: Dispatch<StateAction>; clock: { readonly current: () => number } }) {
  useWatchBatches(backend, dispatch, clock);
  return null;
}

/** Quit keys never wait for the table to load. */
const quitsAtOnce = (input: string, key: Key) => actionFor('list', input, key) === 'quit';

export function App({ backend: single, backends: several, clock = Date.now, tickMs = 1000, size: fixedSize }: AppProps) {
  const { exit } = useApp();
  const size = useTerminalSize(fixedSize);
  // The projects are fixed for the app's life.
  const [backends] = useState<readonly CheckdBackend[]>(() => several ?? (single ? [single] : []));
  const [projects, dispatchAll] = useReducer(projectsReducer, { count: backends.length, now: clock() }, initialProjects);
  const [active, setActive] = useState(0);
  const backend = backends[active]!;
  const state = projects.all[active]!;
  // One dispatch per project, kept for the app's life so that no Watch is ever resubscribed.
  const dispatchers = useMemo(
    () => backends.map((_, index): Dispatch<StateAction> => (action) => dispatchAll({ type: 'project', index, action })),
    [backends],
  );
  const dispatch = dispatchers[active]!;
  const dispatchToAll = useCallback((action: StateAction) => dispatchAll({ type: 'all', action }), []);
  // Read through a ref so that a new clock function never restarts the Watch or the tick.
  const clockRef = useRef(clock);
  clockRef.current = clock;
  useClockTick(dispatchToAll, clockRef, tickMs);

  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const [view, setView] = useState<'list' | 'detail'>('list');
  const [overlay, setOverlay] = useState<Overlay>(null);
  /** The check whose details were opened last; shown while view is 'detail'. */
  const [detailOf, setDetailOf] = useState<string | null>(null);
  const [focus, setFocus] = useState<Focus>('check');
  const [pingIndex, setPingIndex] = useState(0);
  const [flipTop, setFlipTop] = useState(0);
  const [windowIndex, setWindowIndex] = useState(0);
  const [pager, setPager] = useState<PagerState | null>(null);
  const { message, say, clear: clearMessage } = useMessage(clock);
  const pauseOrResume = usePauseResume(backend, dispatch, clock, say);

  const visible = useMemo(() => visibleRows(state.rows, filter), [state.rows, filter]);
  const counts = useMemo(() => countRows(state.rows), [state.rows]);
  const tags = useMemo(() => allTags(state.rows), [state.rows]);

  // Layout: Ink leaves the line under its output to the cursor, so the app
  // takes rows - 1 lines; two header lines, one footer, the table's own header.
  const height = Math.max(6, size.rows - 1);
  const bodyHeight = height - 3;
  const tableHeight = bodyHeight - 1;
  const cursor = useCursor(visible, tableHeight);
  const onScreen = visible.slice(cursor.top, cursor.top + tableHeight);
  // Tags and schedules get the room the rows on screen need, and keep it while
  // scrolling (columns that narrowed again would make the table jump).
  const widest = useRef({ columns: 0, content: { tags: 0, period: 0 } });
  if (widest.current.columns !== size.columns) widest.current = { columns: size.columns, content: { tags: 0, period: 0 } };
  widest.current.content = contentWidths(onScreen, size.columns >= WIDE, widest.current.content);
  const cols = tableColumns(size.columns, widest.current.content);
  const now = state.now;
  const live = state.connection.state === 'live';
  // While the link is down the table stays as it was when it went: dimmed, its ages still.
  const sNow = serverNow(state, asOf(state, now));

  const detailId = view === 'detail' ? detailOf : null;
  const detailRow = detailId ? (state.rows.get(detailId) ?? null) : null;
  const detail = useDetailLoading(backend, detailId, detailRow?.check, live);
  const older = useOlderHistory(backend, detailId);
  const newest = detail.data;
  const data: DetailData = {
    pings: mergePings(newest?.pings ?? [], older.pings),
    flips: mergeFlips(newest?.flips ?? [], older.flips),
    loaded: newest !== null,
    pingsMore: mayHaveMore(older.pingsMore, newest?.pings.length ?? 0, DETAIL_LIMIT),
    flipsMore: mayHaveMore(older.flipsMore, newest?.flips.length ?? 0, DETAIL_LIMIT),
    error: detail.error ?? older.error,
  };
  const shownOutput = outputPing(data.pings);
  const outputBody = usePingBody(backend, detailId, shownOutput?.n ?? null, live);
  const pagerBody = usePingBody(backend, pager?.checkId ?? null, pager?.ping.n ?? null, live);
  const output = shownOutput ? { ping: shownOutput, body: outputBody } : null;
  const layout = detailLayout(detailRow, data, output, bodyHeight, sNow);
  const pingCursor = Math.min(pingIndex, Math.max(0, data.pings.length - 1));
  const pingTopRef = useRef(0);
  const pingTop = focus === 'pings' ? scrollTop(pingTopRef.current, pingCursor, layout.pingRows, data.pings.length) : 0;
  pingTopRef.current = pingTop;
  const windowMs = WINDOWS[windowIndex]!;

  // The ping cursor or the flips at the end of what is loaded: the page before it.
  const pingsAtEnd = focus === 'pings' && data.pingsMore && pingCursor >= data.pings.length - 1;
  const flipsAtEnd = focus === 'flips' && data.flipsMore && flipTop + layout.flipRows >= data.flips.length;
  // A fixed window reaching further back than the flips loaded: the page before them.
  const oldestFlip = data.flips.at(-1);
  const windowShort = windowMs > 0 && data.flipsMore && oldestFlip !== undefined && oldestFlip.timestamp_ms > sNow - windowMs;
  const { loadPings, loadFlips } = older;
  useEffect(() => {
    const last = data.pings.at(-1);
    if (pingsAtEnd && last) loadPings(last);
  }, [pingsAtEnd, data.pings, loadPings]);
  useEffect(() => {
    if ((flipsAtEnd || windowShort) && oldestFlip) loadFlips(oldestFlip);
  }, [flipsAtEnd, windowShort, oldestFlip, loadFlips]);

  const openDetail = (row: Row | null) => {
    if (!row) return;
    if (row.id !== detailOf) {
      setPingIndex(0);
      setFlipTop(0);
    }
    setDetailOf(row.id);
    setView('detail');
  };

  const backToList = () => {
    setView('list');
    setFocus('check');
  };

  /** Another project on screen: its list from the top, unfiltered; its Watch never stopped. */
  const switchTo = (index: number) => {
    if (index === active || index < 0 || index >= backends.length) return;
    setActive(index);
    backToList();
    setPager(null);
    setDetailOf(null);
    setFilter(NO_FILTER);
    cursor.moveTo(0);
  };

  const move = (delta: number) => {
    const next = cursor.moveBy(delta);
    if (view === 'detail' && next.id) openDetail(visible[next.index] ?? null);
  };

  const ask = (action: PauseOrResume, row: Row | null) => {
    if (!row) return;
    const why = refusal(action, row.check, state.project?.read_only ?? false);
    if (why) say(why, 'error');
    else setOverlay({ kind: 'confirm', action, id: row.id, name: row.check.name });
  };

  const openPager = (ping: PingMsg | null | undefined) => {
    if (!ping || !detailId) return;
    if (ping.body_size === 0) return say(`ping #${ping.n} sent no body`);
    setPager({ checkId: detailId, ping, top: 0 });
  };

  const pagerLines = pagerBody.state === 'loaded' ? pagerBody.lines.length : 0;
  const pagerPage = pagerRows(bodyHeight);
  const scrollPager = (to: (top: number) => number) =>
    setPager((p) => p && { ...p, top: Math.max(0, Math.min(to(p.top), pagerLines - pagerPage)) });
  const movePing = (to: (i: number) => number) => setPingIndex((i) => Math.max(0, Math.min(to(i), data.pings.length - 1)));
  const scrollFlips = (to: (top: number) => number) =>
    setFlipTop((t) => Math.max(0, Math.min(to(t), data.flips.length - layout.flipRows)));

  /** Moves in the mode's own list: the check list, the pings, the flips or the pager's lines. */
  const scroll = (mode: Mode, delta: number | 'first' | 'last') => {
    const to = (pos: number, end: number) => (delta === 'first' ? 0 : delta === 'last' ? end : pos + delta);
    if (mode === 'pager') return scrollPager((t) => to(t, pagerLines));
    if (mode === 'pings') return movePing((i) => to(i, data.pings.length));
    if (mode === 'flips') return scrollFlips((t) => to(t, data.flips.length));
    if (delta === 'first') return cursor.moveTo(0);
    if (delta === 'last') return cursor.moveTo(visible.length - 1);
    return move(delta);
  };

  const pageOf = (mode: Mode) =>
    mode === 'pager' ? pagerPage : mode === 'pings' ? Math.max(1, layout.pingRows) : mode === 'flips' ? Math.max(1, layout.flipRows) : tableHeight;

  const perform = (action: Action, input: string, mode: Mode) => {
    switch (action) {
      case 'quit':
        return exit();
      case 'help':
        return setOverlay({ kind: 'help' });
      case 'closeHelp':
      case 'keepSearch':
        return setOverlay(null);
      case 'up':
      case 'down':
        return scroll(mode, action === 'up' ? -1 : 1);
      case 'pageUp':
      case 'pageDown':
        return scroll(mode, action === 'pageUp' ? -pageOf(mode) : pageOf(mode));
      case 'first':
      case 'last':
        return scroll(mode, action);
      case 'open':
        setFocus('check');
        return openDetail(cursor.selected);
      case 'output':
        return openPager(shownOutput);
      case 'openBody':
        return openPager(data.pings[pingCursor]);
      case 'focusNext':
        return setFocus((f) => cycle(FOCUS_ORDER, f));
      case 'windowNext':
      case 'windowPrev':
        return setWindowIndex((i) => (i + (action === 'windowNext' ? 1 : WINDOWS.length - 1)) % WINDOWS.length);
      case 'back':
        if (mode === 'pager') return setPager(null);
        if (mode === 'pings' || mode === 'flips') return setFocus('check');
        return backToList();
      case 'clearFilters':
        if (isFiltered(filter)) setFilter(NO_FILTER);
        return;
      case 'search':
        return setOverlay({ kind: 'search' });
      case 'clearSearch':
        setFilter((f) => ({ ...f, text: '' }));
        return setOverlay(null);
      case 'eraseChar':
        return setFilter((f) => ({ ...f, text: f.text.slice(0, -1) }));
      case 'eraseSearch':
        return setFilter((f) => ({ ...f, text: '' }));
      case 'type':
        return setFilter((f) => ({ ...f, text: f.text + input }));
      case 'nextTag':
      case 'prevTag':
        return setFilter((f) => ({ ...f, tag: tagCycle(tags, f.tag, action === 'nextTag' ? 1 : -1) }));
      case 'nextStatus':
      case 'prevStatus':
        return setFilter((f) => ({ ...f, status: cycle(STATUS_FILTERS, f.status, action === 'nextStatus' ? 1 : -1) }));
      case 'nextSort':
      case 'prevSort':
        return dispatchToAll({ type: 'sort', sort: { key: cycle(SORT_KEYS, state.sort.key, action === 'nextSort' ? 1 : -1), reversed: false } });
      case 'reverseSort':
        return dispatchToAll({ type: 'sort', sort: { ...state.sort, reversed: !state.sort.reversed } });
      case 'nextProject':
      case 'prevProject':
        return switchTo((active + (action === 'nextProject' ? 1 : backends.length - 1)) % backends.length);
      case 'project':
        return switchTo(Number(input) - 1);
      case 'pause':
      case 'resume':
        return ask(action, view === 'detail' ? detailRow : cursor.selected);
      case 'yes':
        if (overlay?.kind !== 'confirm') return;
        setOverlay(null);
        return pauseOrResume(overlay.action, overlay.id, overlay.name);
      case 'no':
        setOverlay(null);
        return say('cancelled');
    }
  };

  useKeyQueue(
    (input, key) => {
      const mode = modeOf(view, focus, pager, overlay);
      // Any key outside a prompt dismisses the message of the moment.
      if (mode !== 'search' && mode !== 'confirm' && mode !== 'help') clearMessage();
      const action = actionFor(mode, input, key);
      if (action) perform(action, input, mode);
    },
    // Keys typed while the first snapshot loads (at start-up, or after switching
    // to a project still connecting) wait for it rather than move over nothing.
    { ready: state.synced, urgent: quitsAtOnce },
  );

  const mode = modeOf(view, focus, pager, overlay);
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
      <HintsLine
        line={mode === 'help' ? (view === 'detail' ? 'detail' : 'list') : mode}
        summary={filterSummary(filter)}
        shown={visible.length}
        total={state.rows.size}
        width={size.columns}
        readOnly={state.project?.read_only ?? false}
      />
    );

  const tabs = projects.all.map((p) => ({ name: p.project?.name ?? null, down: p.rows.counts().down, live: p.connection.state === 'live' }));
  const feeds = backends.map((b, i) => <ProjectFeed key={i} backend={b} dispatch={dispatchers[i]!} clock={clockRef} />);

  let body;
  if (overlay?.kind === 'help') body = <HelpView height={bodyHeight} />;
  else if (pager) {
    const name = (state.rows.get(pager.checkId)?.check.name ?? '') || '(unnamed)';
    const p = pager.ping;
    const title = `${name} · ping #${p.n} ${[p.type, exitText(p)].filter(Boolean).join(' ')} · ${dateTime(p.date_ms)}`;
    body = <Pager title={title} body={pagerBody} top={pager.top} width={size.columns} height={bodyHeight} />;
  } else if (view === 'detail')
    body = (
      <DetailView
        row={detailRow}
        data={data}
        output={output}
        focus={focus}
        pingIndex={pingCursor}
        pingTop={pingTop}
        flipTop={flipTop}
        windowMs={windowMs}
        width={size.columns}
        height={bodyHeight}
        now={sNow}
      />
    );
  else
    body = (
      <CheckTable
        rows={onScreen}
        selected={cursor.index - cursor.top}
        cols={cols}
        height={tableHeight}
        now={sNow}
        isFlashing={(id) => isFlashing(state, id, now)}
        empty={emptyText}
        sort={state.sort}
        stale={!live && state.synced}
      />
    );

  return (
    <Box flexDirection="column" width={size.columns} height={height}>
      <Header
        projectName={state.project?.name ?? null}
        readOnly={state.project?.read_only ?? false}
        connection={state.connection}
        counts={counts}
        sortText={sortLabel(state.sort)}
        tabs={tabs}
        active={active}
        now={now}
        width={size.columns}
        storageAlarm={state.storageAlarm}
      />
      {feeds}
      {body}
      <Box flexGrow={1} />
      {footer}
    </Box>
  );
}
