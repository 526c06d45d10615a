// checktop's state for several projects at once: each project's state
// (state.ts) kept live by its own Watch, whichever is on screen. The clock
// and the sort apply to all of them; everything else to one.
import { initialState, reducer, type Action, type TuiState } from './state.js';

export interface ProjectsState {
  all: readonly TuiState[];
}

export type ProjectsAction = { type: 'project'; index: number; action: Action } | { type: 'all'; action: Action };

export function initialProjects({ count, now }: { count: number; now: number }): ProjectsState {
  return { all: Array.from({ length: count }, () => initialState(now)) };
}

export function projectsReducer(state: ProjectsState, action: ProjectsAction): ProjectsState {
  let changed = false;
  const all = state.all.map((s, i) => {
    if (action.type === 'project' && i !== action.index) return s;
    const next = reducer(s, action.action);
    if (next !== s) changed = true;
    return next;
  });
  return changed ? { all } : state;
}
