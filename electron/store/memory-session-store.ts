/**
 * In-memory reference implementation of {@link SessionStore}. It defines the expected behaviour in
 * the shared contract suite and the differential property test against SQLite; it is also handy for
 * one-off tools that need no file. Events are kept as the frozen objects they were given.
 */
import { StoreError } from '../../shared/errors.js';
import type { SessionEvent, SessionHeader } from '../../shared/events.js';
import { lastTurnAfter, searchableText } from './search-text.js';
import type { AppendOptions, CreateSessionOptions, SessionOwner, SessionRecord, SessionStore, StoreSearchHit, StoreSearchQuery } from './session-store.js';
import { lostClaim } from './session-ownership.js';

interface Entry {
  header: SessionHeader;
  own: SessionEvent[];
  prefixFrom: string | undefined;
  updatedAt: number;
  owner: SessionOwner | undefined;
  lastTurn: string | undefined;
}

interface Doc {
  readonly sessionId: string;
  readonly seq: number;
  readonly kind: string;
  readonly text: string;
  /** Lower-cased text without diacritics, for matching. */
  readonly folded: string;
}

/** Case- and diacritic-insensitive form (what SQLite's trigram tokenizer with remove_diacritics matches). */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, Entry>();
  /** Indexed events in insertion order (search answers newest first). */
  private docs: Doc[] = [];
  private closed = false;

  constructor(private readonly now: () => number = Date.now) {}

  private entry(id: string): Entry {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'the session store is closed');
    const entry = this.sessions.get(id);
    if (!entry) throw new StoreError('SESSION_NOT_FOUND', `session ${id} does not exist`);
    return entry;
  }

  private count(entry: Entry): number {
    return (entry.prefixFrom !== undefined ? (entry.header.seedLength ?? 0) : 0) + entry.own.length;
  }

  createSession(header: SessionHeader, events: readonly SessionEvent[], options: CreateSessionOptions = {}): void {
    if (this.sessions.has(header.id)) throw new StoreError('SESSION_ALREADY_EXISTS', `session ${header.id} already exists`);
    const firstSeq = options.prefixFrom !== undefined ? (header.seedLength ?? 0) : 0;
    if (options.prefixFrom !== undefined) {
      const source = this.entry(options.prefixFrom);
      if (this.count(source) < firstSeq) throw new StoreError('STALE_APPEND', `prefix source ${options.prefixFrom} is too short`);
    }
    events.forEach((e, i) => {
      if (e.seq !== firstSeq + i) throw new StoreError('STALE_APPEND', `create of ${header.id}: seq ${e.seq} where ${firstSeq + i} was expected`);
    });
    this.sessions.set(header.id, { header, own: [...events], prefixFrom: options.prefixFrom, updatedAt: this.now(), owner: undefined, lastTurn: lastTurnAfter(undefined, events) });
    this.index(header.id, events);
  }

  append(sessionId: string, events: readonly SessionEvent[], options: AppendOptions = {}): void {
    if (events.length === 0) return;
    const entry = this.entry(sessionId);
    if (options.ownerToken !== undefined && entry.owner?.token !== options.ownerToken) throw lostClaim(sessionId, entry.owner?.pid, entry.owner?.host);
    const next = this.count(entry);
    events.forEach((e, i) => {
      if (e.seq !== next + i) throw new StoreError('STALE_APPEND', `append to ${sessionId}: seq ${e.seq} where ${next + i} was expected`);
    });
    entry.own.push(...events);
    entry.updatedAt = this.now();
    entry.lastTurn = lastTurnAfter(entry.lastTurn, events);
    this.index(sessionId, events);
  }

  readAll(sessionId: string): SessionEvent[] {
    return this.readFrom(sessionId, 0);
  }

  readFrom(sessionId: string, fromSeq: number): SessionEvent[] {
    const entry = this.entry(sessionId);
    const prefix = entry.prefixFrom !== undefined ? this.readAll(entry.prefixFrom).slice(0, entry.header.seedLength ?? 0) : [];
    return [...prefix, ...entry.own].slice(Math.max(0, fromSeq));
  }

  readRange(sessionId: string, fromSeq: number, toSeq: number): SessionEvent[] {
    return this.readFrom(sessionId, fromSeq).slice(0, Math.max(0, toSeq - Math.max(0, fromSeq)));
  }

  lastEventOfType(sessionId: string, type: string, beforeSeq: number): SessionEvent | undefined {
    const events = this.readRange(sessionId, 0, beforeSeq);
    for (let i = events.length - 1; i >= 0; i--) if (events[i]!.type === type) return events[i];
    return undefined;
  }

  get(sessionId: string): SessionRecord | undefined {
    const entry = this.sessions.get(sessionId);
    return entry ? this.record(entry) : undefined;
  }

  private record(entry: Entry): SessionRecord {
    return {
      header: entry.header,
      eventCount: this.count(entry),
      updatedAt: entry.updatedAt,
      ...(entry.prefixFrom !== undefined ? { prefixFrom: entry.prefixFrom } : {}),
      ...(entry.owner !== undefined ? { owner: entry.owner } : {}),
      ...(entry.lastTurn !== undefined ? { lastTurn: entry.lastTurn } : {}),
    };
  }

  private index(sessionId: string, events: readonly SessionEvent[]): void {
    for (const event of events) {
      const doc = searchableText(event);
      if (doc) this.docs.push({ sessionId, seq: event.seq, kind: doc.kind, text: doc.text, folded: fold(doc.text) });
    }
  }

  search(query: StoreSearchQuery): StoreSearchHit[] {
    if (this.closed) throw new StoreError('STORE_CLOSED', 'the session store is closed');
    if (query.terms.length === 0 || query.limit <= 0) return [];
    const needles = query.terms.map(fold);
    const hits: StoreSearchHit[] = [];
    for (let i = this.docs.length - 1; i >= 0 && hits.length < query.limit; i--) {
      const doc = this.docs[i]!;
      if (query.sessionId !== undefined && doc.sessionId !== query.sessionId) continue;
      if (needles.every((n) => doc.folded.includes(n))) hits.push({ sessionId: doc.sessionId, seq: doc.seq, kind: doc.kind, text: doc.text });
    }
    return hits;
  }

  /** No other connection can write a memory store. */
  externalVersion(): number {
    return 0;
  }

  /** Memory sessions are indexed as they are written (`deferSearch` is ignored): nothing is ever pending. */
  indexPendingSearch(): boolean {
    return false;
  }

  list(): SessionRecord[] {
    return [...this.sessions.values()].sort((a, b) => b.updatedAt - a.updatedAt || a.header.id.localeCompare(b.header.id)).map((e) => this.record(e));
  }

  children(sessionId: string): SessionRecord[] {
    return [...this.sessions.values()].filter((e) => e.prefixFrom === sessionId).map((e) => this.record(e));
  }

  setTitle(sessionId: string, title: string | undefined): void {
    const entry = this.entry(sessionId);
    const { title: _old, ...rest } = entry.header;
    void _old;
    entry.header = title === undefined ? rest : { ...rest, title };
  }

  setOwner(sessionId: string, owner: SessionOwner | undefined): void {
    this.entry(sessionId).owner = owner === undefined ? undefined : { ...owner };
  }

  /** Runs `fn`; a throw restores every session as it was (the in-memory form of a rollback). */
  atomically<T>(fn: () => T): T {
    const saved = new Map([...this.sessions].map(([id, e]) => [id, { ...e, own: [...e.own] }]));
    try {
      return fn();
    } catch (error) {
      this.sessions.clear();
      for (const [id, e] of saved) this.sessions.set(id, e);
      throw error;
    }
  }

  delete(sessionId: string): void {
    this.entry(sessionId);
    for (const [, child] of this.sessions) {
      if (child.prefixFrom === sessionId) {
        const prefix = this.readAll(sessionId).slice(0, child.header.seedLength ?? 0);
        child.own = [...prefix, ...child.own];
        child.prefixFrom = undefined;
        this.index(child.header.id, prefix);
      }
    }
    this.sessions.delete(sessionId);
    this.docs = this.docs.filter((d) => d.sessionId !== sessionId);
  }

  close(): void {
    this.closed = true;
  }
}
