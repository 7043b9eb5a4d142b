/**
 * Timeline reducers for log-only events that have rows of their own (`session/title`,
 * `todo/write`, `import/elided`, `instructions/loaded`), and the generic reducer every other event type falls back to:
 * one muted row with a label and, for types this build does not know, a payload preview — so an
 * imported or newer log never loses an event from view.
 */
import { KNOWN_EVENT_TYPES } from '../events.js';
import { asArray, asNumber, asObject, asString, readTodos } from '../event-read.js';
import type { ElidedRow, InstructionFileFacts, InstructionsRow } from '../timeline-rows.js';
import { eventLabel, payloadPreview } from './event-labels.js';
import type { EventReducer, Mutable, ReducerTable } from './fold-state.js';

/** Any event without a reducer of its own. */
export const logEventReducer: EventReducer = (fold, e, d) => {
  const type = e.type as string;
  const preview = KNOWN_EVENT_TYPES.has(type) ? undefined : payloadPreview(d);
  fold.eventRow(e, type, eventLabel(type, d), preview ? { preview } : undefined);
};

export const logReducers = {
  'session/title': (fold, e, d) => {
    const title = asString(d['title']);
    if (title !== undefined && title.trim()) fold.title = title;
    fold.eventRow(e, 'session/title', eventLabel('session/title', d));
  },

  'todo/write': (fold, e, d) => {
    fold.eventRow(e, 'todo/write', eventLabel('todo/write', d), { todos: readTodos(d['todos']) });
  },

  'instructions/loaded': (fold, e, d) => {
    const files: InstructionFileFacts[] = [];
    for (const item of asArray(d['files'])) {
      const f = asObject(item);
      const path = asString(f?.['path']);
      if (!f || path === undefined) continue;
      const bytes = asNumber(f['bytes']);
      files.push({
        path,
        shownPath: asString(f['shownPath']) ?? path,
        scope: asString(f['scope']) ?? 'project',
        sha256: asString(f['sha256']) ?? '',
        ...(bytes !== undefined ? { bytes } : {}),
        ...(f['truncated'] === true ? { truncated: true } : {}),
      });
    }
    const row: Mutable<InstructionsRow> = { kind: 'instructions', key: `instructions:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [e.seq], placement: asString(d['placement']) ?? 'system', files };
    const callId = asString(d['callId']);
    if (callId !== undefined) row.callId = callId;
    const where = fold.openStepNumbers();
    if (where.turn !== undefined) row.turn = where.turn;
    if (where.step !== undefined) row.step = where.step;
    fold.own(e.seq, fold.push(row));
  },

  'import/elided': (fold, e) => {
    const lastIdx = fold.rows.length - 1;
    const last = fold.rows[lastIdx];
    if (last && last.kind === 'elided' && last.toSeq === e.seq - 1) {
      fold.edit<ElidedRow>(lastIdx).toSeq = e.seq;
      fold.own(e.seq, lastIdx);
      return;
    }
    const row: ElidedRow = { kind: 'elided', key: `elided:${e.seq}`, seq: e.seq, time: e.time, refSeqs: [], fromSeq: e.seq, toSeq: e.seq };
    fold.own(e.seq, fold.push(row));
  },
} satisfies ReducerTable;
