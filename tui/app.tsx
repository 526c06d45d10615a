// checktop's root component: composes the hooks that feed it (terminal size,
// Watch, clock, keys, details, messages), keeps the view state (filter,
// cursor, open view, prompt) and says what each action of the key table does.
// Everything decidable without a terminal lives in the modules it imports.
import { useMemo, useReducer, useRef, useState } from 'react';
import { Box, useApp } from 'ink';
import { CheckTable, tableColumns } from './components/CheckTable.js';
import { DetailView } from './components/DetailView.js';
import { ConfirmPrompt, filterSummary, HintsLine, MessageLine, SearchPrompt } from './components/Footer.js';
import { Header } from './components/Header.js';
import { HelpView } from './components/HelpView.js';
import { useClockTick } from './hooks/useClockTick.js';
import { useCursor } from './hooks/useCursor.js';
import { useDetailLoading } from './hooks/useDetailLoading.js';
import { useKeyQueue } from './hooks/useKeyQueue.js';
import { useMessage } from './hooks/useMessage.js';
import { refusal, usePauseResume, type PauseOrResume } from './hooks/usePauseResume.js';
import { useTerminalSize, type Size } from './hooks/useTerminalSize.js';
import { useWatchBatches } from './hooks/useWatchBatches.js';
import { actionFor, type Action, type Mode } from './keys.js';
import type { Row } from './row.js';
import { initialState, isFlashing, reducer, serverNow } from './state.js';
import { allTags, countRows, cycle, isFiltered, NO_FILTER, STATUS_FILTERS, tagCycle, visibleRows, type Filter } from './views.js';
import type { CheckdBackend } from './watch-client.js';

export interface AppProps {
  backend: CheckdBackend;
  /** The local clock; tests pass a fixed one. */
  clock?: () => number;
  /** How often statuses are recomputed and "ago" columns advance. */
  tickMs?: number;
  /** A fixed terminal size (tests); by default the terminal's, following resizes. */
  size?: Size;
}

type Overlay = null | { kind: 'help' } | { kind: 'search' } | { kind: 'confirm'; action: PauseOrResume; id: string; name: string };

function modeOf(view: 'list' | 'detail', overlay: Overlay): Mode {
  return overlay ? overlay.kind : view;
}

export function App({ backend, clock = Date.now, tickMs = 1000, size: fixedSize }: AppProps) {
  const { exit } = useApp();
  const size = useTerminalSize(fixedSize);
  const [state, dispatch] = useReducer(reducer, clock(), initialState);
  // Read through a ref so that a new clock function never restarts the Watch or the tick.
  const clockRef = useRef(clock);
  clockRef.current = clock;
  useWatchBatches(backend, dispatch, clockRef);
  useClockTick(dispatch, clockRef, tickMs);

  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const [view, setView] = useState<'list' | 'detail'>('list');
  const [overlay, setOverlay] = useState<Overlay>(null);
  /** The check whose details were opened last; shown while view is 'detail'. */
  const [detailOf, setDetailOf] = useState<string | null>(null);
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
  const cols = tableColumns(size.columns);
  const cursor = useCursor(visible, tableHeight);
  const now = state.now;
  const sNow = serverNow(state, now);

  const detailId = view === 'detail' ? detailOf : null;
  const detailRow = detailId ? (state.rows.get(detailId) ?? null) : null;
  const detail = useDetailLoading(backend, detailId, detailRow?.check, state.connection.state === 'live');

  const openDetail = (row: Row | null) => {
    if (!row) return;
    setDetailOf(row.id);
    setView('detail');
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

  const perform = (action: Action, input: string) => {
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
        return move(action === 'up' ? -1 : 1);
      case 'pageUp':
      case 'pageDown':
        return move(action === 'pageUp' ? -tableHeight : tableHeight);
      case 'first':
        return cursor.moveTo(0);
      case 'last':
        return cursor.moveTo(visible.length - 1);
      case 'open':
        return openDetail(cursor.selected);
      case 'back':
        return setView('list');
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

  useKeyQueue((input, key) => {
    const mode = modeOf(view, overlay);
    // Any key on the list or the details dismisses the message of the moment.
    if (mode === 'list' || mode === 'detail') clearMessage();
    const action = actionFor(mode, input, key);
    if (action) perform(action, input);
  });

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
    body = <DetailView row={detailRow} detail={detail.data} error={detail.error} width={size.columns} height={bodyHeight} now={sNow} />;
  else
    body = (
      <CheckTable
        rows={visible.slice(cursor.top, cursor.top + tableHeight)}
        selected={cursor.index - cursor.top}
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
