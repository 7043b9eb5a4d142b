/**
 * The reducer registry: every event family's reducers by event type, and the dispatch the
 * incremental fold calls once per event. A type with no reducer gets a generic log-event row.
 * To teach the timeline a new event, add a reducer to its family's table (or a new family module)
 * and list the table here.
 */
import type { SessionEvent } from '../events.js';
import { asObject, type Loose } from '../event-read.js';
import { approvalReducers } from './approval-reducers.js';
import { chunkReducers } from './chunk-reducers.js';
import { compactionReducers } from './compaction-reducers.js';
import type { EventReducer, FoldState, ReducerTable } from './fold-state.js';
import { logEventReducer, logReducers } from './log-reducers.js';
import { messageReducers } from './message-reducers.js';
import { requestReducers } from './request-reducers.js';
import { toolReducers } from './tool-reducers.js';
import { turnReducers } from './turn-reducers.js';

const FAMILIES: readonly ReducerTable[] = [turnReducers, messageReducers, chunkReducers, toolReducers, approvalReducers, compactionReducers, requestReducers, logReducers];

const REDUCERS: ReadonlyMap<string, EventReducer> = new Map(FAMILIES.flatMap((table) => Object.entries(table)));

/** Applies one event to the fold state. Never throws on odd payloads. */
export function reduceEvent(fold: FoldState, event: SessionEvent): void {
  const data: Loose = asObject(event.data) ?? {};
  (REDUCERS.get(event.type as string) ?? logEventReducer)(fold, event, data);
}
