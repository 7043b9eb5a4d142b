/**
 * The reducer registry: every event family's reducers by event type, and the dispatch the
 * incremental fold calls once per event. A type with no reducer gets a generic log-event row.
 * To teach the timeline a new event, add a reducer to its family's table (or a new family module)
 * and list the table here, or name the type in {@link LOG_ROW_TYPES}: the compiler refuses an event
 * type that is in neither (see CONTRIBUTING.md, "Adding an event type").
 */
import type { SessionEvent, SessionEventType } from '../events.js';
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

/** Event types the timeline shows as a generic log row (no family reducer), on purpose. */
export const LOG_ROW_TYPES = [
  'tool/process',
  'approval/policy',
  'agent/inbox/spliced',
  'compaction/prune',
  'workspace/checkpoint',
  'session/takeover',
  'import/foreign',
  'check/result',
  'workspace/apply',
  'workspace/rewind',
] as const satisfies readonly SessionEventType[];

type FamilyTypes =
  | keyof typeof turnReducers
  | keyof typeof messageReducers
  | keyof typeof chunkReducers
  | keyof typeof toolReducers
  | keyof typeof approvalReducers
  | keyof typeof compactionReducers
  | keyof typeof requestReducers
  | keyof typeof logReducers;
/** Compiles only when every event type has a family reducer or is in {@link LOG_ROW_TYPES}. */
type EveryTypeCovered<Missing extends never> = Missing;
export type _TimelineCoversEveryEventType = EveryTypeCovered<Exclude<SessionEventType, FamilyTypes | (typeof LOG_ROW_TYPES)[number]>>;

const REDUCERS: ReadonlyMap<string, EventReducer> = new Map(FAMILIES.flatMap((table) => Object.entries(table).filter((entry): entry is [string, EventReducer] => entry[1] !== undefined)));

/** Applies one event to the fold state. Never throws on odd payloads. */
export function reduceEvent(fold: FoldState, event: SessionEvent): void {
  const data: Loose = asObject(event.data) ?? {};
  (REDUCERS.get(event.type as string) ?? logEventReducer)(fold, event, data);
}
