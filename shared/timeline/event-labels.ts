/**
 * One-line labels for log-only events (request headers, inbox splices, titles, checkpoints…), and
 * a compact payload preview for event types this build does not know (other agents' logs, newer
 * builds), so every event gets a readable row.
 */
import { asArray, asNumber, asObject, asString, joinText, type Loose } from '../event-read.js';
import { headPreview } from '../preview.js';
import { formatUsd } from '../pricing.js';

/** Characters of a payload preview for an unknown event type. */
export const PREVIEW_CHARS = 160;

/** One-line label of a log-only event. */
export function eventLabel(type: string, d: Loose): string {
  switch (type) {
    case 'request/header': {
      const header = asObject(d['header']);
      const config = asObject(header?.['config']);
      const model = [asString(config?.['provider']), asString(config?.['model'])].filter(Boolean).join('/');
      const effort = asString(config?.['reasoningEffort']);
      const tools = asArray(header?.['tools']).length;
      return `request header (${asString(d['reason']) ?? '?'}) ${model}${effort ? ` · effort ${effort}` : ''}${tools ? ` · ${tools} tools` : ''}`;
    }
    case 'request/context': {
      const window = asNumber(d['contextWindow']);
      return `request context ${[asString(d['provider']), asString(d['model'])].filter(Boolean).join('/')}${window ? ` · window ${window}` : ''}`;
    }
    case 'request/price': {
      const quote = asObject(d['quote']);
      const model = [asString(d['provider']), asString(d['model'])].filter(Boolean).join('/');
      const worst = asNumber(d['worstCaseUsd']);
      const what = quote?.['kind'] === 'known' ? `${asString(quote['source']) ?? 'list'} ${asString(quote['priceId']) ?? ''}`.trim() : 'price unknown';
      return `request price ${model} · ${what} (${asString(quote?.['snapshot']) ?? '?'})${worst !== undefined ? ` · worst case ${formatUsd(worst)}` : ''}`;
    }
    case 'agent/inbox/spliced': {
      const target = asString(d['target']) ?? '?';
      const inserted = asArray(d['inserted']);
      const removed = asNumber(d['removedCount']) ?? 0;
      const parts: string[] = [];
      if (removed > 0) parts.push(d['outcome'] === 'canceled' ? `canceled ${removed}` : `claimed ${removed}`);
      if (inserted.length > 0) {
        const first = asObject(inserted[0]);
        const kind = asString(asObject(first?.['source'])?.['kind']);
        parts.push(`queued ${inserted.length}${kind ? ` ${kind}` : ''}: “${headPreview(joinText(first?.['content']), 60, { oneLine: true })}”`);
      }
      return `inbox ${target}: ${parts.join(', ') || 'no change'}`;
    }
    case 'session/title':
      return `title: ${asString(d['title']) ?? ''}`;
    case 'todo/write': {
      const todos = asArray(d['todos']);
      const done = todos.filter((t) => asObject(t)?.['status'] === 'completed').length;
      return `todos ${done}/${todos.length} done`;
    }
    case 'check/result': {
      const counts = asObject(d['counts']);
      const figures = counts ? ` · ${asNumber(counts['passed']) ?? 0} passed, ${asNumber(counts['failed']) ?? 0} failed` : '';
      const verdict = d['timedOut'] === true ? 'timed out' : d['passed'] === true ? 'passed' : `failed (exit ${String(d['exitCode'] ?? asString(d['signal']) ?? '?')})`;
      return `${asString(d['purpose']) === 'setup' ? 'setup' : 'check'} \`${headPreview(asString(d['command']) ?? '', 60, { oneLine: true })}\` ${verdict}${figures}`;
    }
    case 'workspace/apply': {
      const conflicts = asArray(d['conflicts']);
      return d['applied'] === true
        ? `applied ${asArray(d['files']).length} file(s) from branch ${(asString(d['branch']) ?? '').slice(0, 8)}`
        : `apply of branch ${(asString(d['branch']) ?? '').slice(0, 8)} refused: ${conflicts.length} conflicting file(s)`;
    }
    case 'workspace/rewind':
      return `folder rewound to ${(asString(d['restored']) ?? '').slice(0, 10)}; the abandoned line ${(asString(d['from']) ?? '').slice(0, 8)} kept as ${(asString(d['abandoned']) ?? '').slice(0, 10)}`;
    case 'workspace/checkpoint':
      return `workspace checkpoint ${(asString(d['commit']) ?? '').slice(0, 10)} (turn ${asNumber(d['turn']) ?? '?'})`;
    case 'approval/policy':
      return `approval policy: ${asString(d['policy']) ?? '?'}`;
    case 'approval/rule': {
      const prefix = asString(d['commandPrefix']);
      return `allowed for this session: ${asString(d['toolName']) ?? '?'}${prefix !== undefined ? ` commands starting with \`${headPreview(prefix, 80, { oneLine: true })}\`` : ''}`;
    }
    case 'compaction/prune':
      return `tool result pruned (${asArray(d['shadowedSeqs']).length} shadowed, ~${asNumber(d['shadowedTokenCount']) ?? 0} tokens)`;
    case 'import/foreign': {
      // A record of an imported log kept raw (docs/importing.md): name its own type and format.
      const note = asString(d['note']);
      return `${asString(d['format']) ?? 'imported'} ${asString(d['type']) ?? 'record'}${d['modelVisible'] === true ? ' · model-visible, not replayed' : ''}${note ? ` · ${headPreview(note, 80, { oneLine: true })}` : ''}`;
    }
    default: {
      const message = asString(d['message']) ?? asString(d['text']) ?? asString(d['reason']);
      return message !== undefined && message.trim() !== '' ? `${type}: ${headPreview(message, 120, { oneLine: true })}` : type;
    }
  }
}

/** Compact JSON of a payload, cut at `max` characters (never mid code point); '' for an empty object. */
export function payloadPreview(d: Loose, max = PREVIEW_CHARS): string {
  let json: string;
  try {
    json = JSON.stringify(d) ?? '';
  } catch {
    return '';
  }
  return json === '{}' ? '' : headPreview(json, max);
}
