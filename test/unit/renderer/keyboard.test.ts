/**
 * The keyboard layer's pure parts: shortcut matching and labels per platform, the command list
 * (what applies when, with which shortcut), filtering, and provider readiness.
 */
import { describe, expect, it } from 'vitest';
import type { SessionSummary, SettingsView } from '../../../shared/api.js';
import { buildCommands, filterCommands, SHORTCUTS, type CommandEffects } from '../../../renderer/keyboard/commands.js';
import { matchesShortcut, platformOf, shortcutLabel } from '../../../renderer/keyboard/shortcut.js';
import { createAppStore, sidebarFolded, sidebarFoldedForRoom } from '../../../renderer/state/app-store.js';
import { providerReadiness } from '../../../renderer/state/provider-readiness.js';

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe('shortcuts', () => {
  it('match Ctrl on Linux/Windows and Cmd on macOS, with no extra modifiers', () => {
    expect(matchesShortcut(key('k', { ctrlKey: true }), SHORTCUTS.palette, 'other')).toBe(true);
    expect(matchesShortcut(key('K', { ctrlKey: true }), SHORTCUTS.palette, 'other')).toBe(true);
    expect(matchesShortcut(key('k', { metaKey: true }), SHORTCUTS.palette, 'other')).toBe(false);
    expect(matchesShortcut(key('k', { metaKey: true }), SHORTCUTS.palette, 'mac')).toBe(true);
    expect(matchesShortcut(key('k', { ctrlKey: true }), SHORTCUTS.palette, 'mac')).toBe(false);
    expect(matchesShortcut(key('k', { ctrlKey: true, shiftKey: true }), SHORTCUTS.palette, 'other')).toBe(false);
    expect(matchesShortcut(key('Escape'), SHORTCUTS.cancel, 'other')).toBe(true);
    expect(matchesShortcut(key('F6', { shiftKey: true }), SHORTCUTS.previousRegion, 'other')).toBe(true);
    expect(matchesShortcut(key('F6', { shiftKey: true }), SHORTCUTS.nextRegion, 'other')).toBe(false);
  });

  it('label per platform', () => {
    expect(shortcutLabel(SHORTCUTS.newSession, 'other')).toBe('Ctrl+N');
    expect(shortcutLabel(SHORTCUTS.newSession, 'mac')).toBe('⌘N');
    expect(shortcutLabel(SHORTCUTS.steer, 'other')).toBe('Ctrl+Enter');
    expect(shortcutLabel(SHORTCUTS.cancel, 'other')).toBe('Esc');
    expect(platformOf('MacIntel Mozilla/5.0 (Macintosh)')).toBe('mac');
    expect(platformOf('Linux x86_64')).toBe('other');
  });
});

describe('command list', () => {
  const calls: string[] = [];
  const effects: CommandEffects = {
    newSession: () => calls.push('new'),
    cancel: (id) => calls.push(`cancel ${id}`),
    fork: (id, worktree) => calls.push(`fork ${id} ${worktree}`),
    compareWithParent: (id) => calls.push(`compare ${id}`),
    fanOut: (id) => calls.push(`fan out ${id}`),
    replay: (id) => calls.push(`replay ${id}`),
    editAndSend: () => calls.push('edit and send'),
    inspectLastRequest: () => calls.push('inspect last request'),
    continueImported: () => calls.push('continue imported'),
    compact: (id) => calls.push(`compact ${id}`),
    exportSession: (id) => calls.push(`export ${id}`),
    importSession: () => calls.push('import'),
    importFolder: () => calls.push('import folder'),
    focus: (region) => calls.push(`focus ${region}`),
    cycle: (d) => calls.push(`cycle ${d}`),
    focusFind: () => calls.push('focus find'),
    dismissToast: () => calls.push('dismiss toast'),
  };
  const summary = (id: string, extra: Partial<SessionSummary> = {}): SessionSummary => ({ id, createdAt: 0, updatedAt: 0, eventCount: 3, status: 'idle', ...extra });

  it('offers "Replay on this build" for an open session (read-only ones too) and "Edit and send" only with a request inspected', () => {
    const app = createAppStore();
    const commands = () => buildCommands({ state: app.getState(), running: false, readOnly: true, approvalsPending: false }, effects);
    expect(commands().map((c) => c.id)).not.toContain('replay');
    app.getState().setSessions([summary('imported')]);
    app.getState().select('imported');
    commands()
      .find((c) => c.id === 'replay')!
      .run();
    expect(calls.at(-1)).toBe('replay imported');
    expect(commands().map((c) => c.id)).not.toContain('edit-and-send');
    app.getState().inspectRequest({ turn: 1, step: 1 });
    commands()
      .find((c) => c.id === 'edit-and-send')!
      .run();
    expect(calls.at(-1)).toBe('edit and send');
  });

  it('offers "Continue in Forkline" for an open imported session only (the palette found nothing for "Continue" before)', () => {
    const app = createAppStore();
    app.getState().setSessions([summary('imported'), summary('native')]);
    app.getState().select('imported');
    const find = (imported: boolean) => filterCommands(buildCommands({ state: app.getState(), running: false, readOnly: true, imported, approvalsPending: false }, effects), 'continue');
    expect(find(false)).toEqual([]);
    const found = find(true);
    expect(found.map((c) => c.id)).toEqual(['continue-imported']);
    found[0]!.run();
    expect(calls.at(-1)).toBe('continue imported');
    // It does not shadow the folder import (the e2e types these words, and the first match runs).
    expect(filterCommands(buildCommands({ state: app.getState(), running: false, readOnly: true, imported: true, approvalsPending: false }, effects), 'import a session folder')[0]!.id).toBe(
      'import-folder',
    );
  });

  it('offers session commands only with a session open, cancel only while running, compare only for a fork', () => {
    const app = createAppStore();
    const ids = () => buildCommands({ state: app.getState(), running: false, readOnly: false, approvalsPending: false }, effects).map((c) => c.id);
    expect(ids()).toContain('new-session');
    expect(ids()).not.toContain('find');
    expect(ids()).not.toContain('cancel');
    app.getState().setSessions([summary('root'), summary('child', { parentSession: 'root' })]);
    app.getState().select('root');
    expect(ids()).toEqual(expect.arrayContaining(['find', 'fork', 'rename', 'go-timeline', 'go-composer']));
    expect(ids()).not.toContain('compare-parent');
    const running = buildCommands({ state: app.getState(), running: true, readOnly: false, approvalsPending: true }, effects);
    expect(running.map((c) => c.id)).toEqual(expect.arrayContaining(['cancel', 'go-approvals']));
    expect(running.map((c) => c.id)).not.toContain('compact');
    // Fan out… from the last finished turn: not while a turn runs; it has its own shortcut.
    expect(running.map((c) => c.id)).not.toContain('fan-out');
    const fan = buildCommands({ state: app.getState(), running: false, readOnly: false, approvalsPending: false }, effects).find((c) => c.id === 'fan-out')!;
    expect(fan.shortcut).toEqual(SHORTCUTS.fanOut);
    fan.run();
    expect(calls.at(-1)).toBe('fan out root');
    running.find((c) => c.id === 'cancel')!.run();
    expect(calls.at(-1)).toBe('cancel root');
    app.getState().select('child');
    const forChild = buildCommands({ state: app.getState(), running: false, readOnly: false, approvalsPending: false }, effects);
    forChild.find((c) => c.id === 'compare-parent')!.run();
    expect(calls.at(-1)).toBe('compare child');
    // Commands with a shortcut carry it (the palette shows it, the key handler runs it).
    expect(forChild.find((c) => c.id === 'new-session')!.shortcut).toEqual(SHORTCUTS.newSession);
    expect(forChild.find((c) => c.id === 'find')!.shortcut).toEqual(SHORTCUTS.find);
    // Read-only sessions cannot be forked or continued from here.
    expect(buildCommands({ state: app.getState(), running: false, readOnly: true, approvalsPending: false }, effects).map((c) => c.id)).not.toContain('go-composer');
  });

  it('a side panel in a narrow window folds the sidebar; showing it again holds until the window is wide', () => {
    const app = createAppStore();
    const folded = (): boolean => sidebarFolded(app.getState());
    const toggle = (): void =>
      buildCommands({ state: app.getState(), running: false, readOnly: false, approvalsPending: false }, effects)
        .find((c) => c.id === 'sidebar')!
        .run();
    app.getState().setLayoutFacts({ dockOpen: true });
    expect(folded()).toBe(false);
    app.getState().setLayoutFacts({ narrowWindow: true });
    expect([folded(), sidebarFoldedForRoom(app.getState())]).toEqual([true, true]);
    toggle();
    expect([folded(), app.getState().sidebarCollapsed]).toEqual([false, false]);
    app.getState().setLayoutFacts({ dockOpen: false });
    app.getState().setLayoutFacts({ dockOpen: true });
    expect(folded()).toBe(false);
    app.getState().setLayoutFacts({ narrowWindow: false });
    app.getState().setLayoutFacts({ narrowWindow: true });
    expect(folded()).toBe(true);
    // Hidden by the person: folded whatever the panels, and not "for room".
    app.getState().setSidebarCollapsed(true);
    app.getState().setLayoutFacts({ dockOpen: false });
    expect([folded(), sidebarFoldedForRoom(app.getState())]).toEqual([true, false]);
  });

  it('runs state commands against the store', () => {
    const app = createAppStore();
    app.getState().setSessions([summary('s1')]);
    app.getState().select('s1');
    const commands = buildCommands({ state: app.getState(), running: false, readOnly: false, approvalsPending: false }, effects);
    commands.find((c) => c.id === 'sidebar')!.run();
    expect(app.getState().sidebarCollapsed).toBe(true);
    commands.find((c) => c.id === 'find')!.run();
    expect(app.getState().find).toBeDefined();
    commands.find((c) => c.id === 'rename')!.run();
    expect(app.getState().sessionEdit).toEqual({ sessionId: 's1', kind: 'rename' });
    commands.find((c) => c.id === 'branches')!.run();
    expect(app.getState()).toMatchObject({ branchesOpen: true, dockTab: 'branches' });
  });

  it('Esc closes the compare view (the command is offered only there)', () => {
    const app = createAppStore();
    app.getState().setSessions([summary('s1'), summary('s2')]);
    app.getState().select('s1');
    const facts = { running: false, readOnly: false, approvalsPending: false };
    expect(buildCommands({ state: app.getState(), ...facts }, effects).map((c) => c.id)).not.toContain('close-compare');
    app.getState().openCompare('s1', 's2');
    const close = buildCommands({ state: app.getState(), ...facts }, effects).find((c) => c.id === 'close-compare')!;
    expect(close.shortcut).toEqual(SHORTCUTS.cancel);
    close.run();
    expect(app.getState().compare).toBeUndefined();
  });

  it('Esc closes the board, never cancels the turn of the session behind it, and closing an A/B opened from the board goes back to the board', () => {
    const app = createAppStore();
    app.getState().setSessions([summary('s1'), summary('s2'), summary('s3')]);
    app.getState().select('s1');
    const onEsc = () => buildCommands({ state: app.getState(), running: true, readOnly: false, approvalsPending: false }, effects).find((c) => c.shortcut === SHORTCUTS.cancel)!;
    expect(onEsc().id).toBe('cancel');
    app.getState().openBoard({ ids: ['s1', 's2', 's3'] });
    expect(onEsc().id).toBe('close-board');
    // "A/B details" from the board, then Esc: back on the board.
    app.getState().openCompare('s1', 's2');
    expect(app.getState().board).toBeUndefined();
    onEsc().run();
    expect(app.getState().compare).toBeUndefined();
    expect(app.getState().board?.ids).toEqual(['s1', 's2', 's3']);
    onEsc().run();
    expect(app.getState().board).toBeUndefined();
    expect(onEsc().id).toBe('cancel');
    // A comparison opened from the session (not the board) closes to the session.
    app.getState().openCompare('s1', 's3');
    onEsc().run();
    expect([app.getState().compare, app.getState().board]).toEqual([undefined, undefined]);
  });

  it('the palette reaches the outline and the request inspector', () => {
    const app = createAppStore();
    app.getState().setSessions([summary('s1')]);
    app.getState().select('s1');
    const commands = () => buildCommands({ state: app.getState(), running: false, readOnly: false, approvalsPending: false }, effects);
    expect(filterCommands(commands(), 'outline').map((c) => c.id)).toEqual(['outline']);
    commands()
      .find((c) => c.id === 'outline')!
      .run();
    expect(app.getState().outlineOpen).toBe(true);
    expect(commands().find((c) => c.id === 'outline')!.label).toBe('Hide the outline');
    expect(filterCommands(commands(), 'request').map((c) => c.id)).toContain('inspect-request');
    commands()
      .find((c) => c.id === 'inspect-request')!
      .run();
    expect(calls.at(-1)).toBe('inspect last request');
  });

  it('Esc dismisses a toast when there is one, after cancelling a running turn and closing the compare view', () => {
    const app = createAppStore();
    app.getState().setSessions([summary('s1'), summary('s2')]);
    app.getState().select('s1');
    const firstOnEsc = (running: boolean) => buildCommands({ state: app.getState(), running, readOnly: false, approvalsPending: false }, effects).find((c) => c.shortcut === SHORTCUTS.cancel)?.id;
    expect(firstOnEsc(false)).toBeUndefined();
    app.getState().toast('Exported s1.jsonl (1.2 kB).', 'info');
    expect(firstOnEsc(false)).toBe('dismiss-toast');
    expect(firstOnEsc(true)).toBe('cancel');
    app.getState().openCompare('s1', 's2');
    expect(firstOnEsc(false)).toBe('close-compare');
    app.getState().closeCompare();
    buildCommands({ state: app.getState(), running: false, readOnly: false, approvalsPending: false }, effects)
      .find((c) => c.id === 'dismiss-toast')!
      .run();
    expect(calls.at(-1)).toBe('dismiss toast');
  });

  it('Esc closes the innermost thing focus is in: a focused toast before the compare view or board behind it', () => {
    const app = createAppStore();
    app.getState().setSessions([summary('s1'), summary('s2')]);
    app.getState().select('s1');
    const firstOnEsc = (toastFocused: boolean, running = false) =>
      buildCommands({ state: app.getState(), running, readOnly: false, approvalsPending: false, toastFocused }, effects).find((c) => c.shortcut === SHORTCUTS.cancel)?.id;
    app.getState().toast('Exported s1.jsonl (1.2 kB).', 'info');
    app.getState().openCompare('s1', 's2');
    expect(firstOnEsc(false)).toBe('close-compare');
    expect(firstOnEsc(true)).toBe('dismiss-toast');
    app.getState().closeCompare();
    app.getState().openBoard({ ids: ['s1', 's2'] });
    expect(firstOnEsc(false)).toBe('close-board');
    expect(firstOnEsc(true)).toBe('dismiss-toast');
    // In the session itself a running turn is still cancelled first (README "Keyboard").
    app.getState().closeBoard();
    expect(firstOnEsc(true, true)).toBe('cancel');
  });

  it('filters by every typed word, in list order', () => {
    const app = createAppStore();
    const all = buildCommands({ state: app.getState(), running: false, readOnly: false, approvalsPending: false }, effects);
    expect(filterCommands(all, '').length).toBe(all.length);
    expect(filterCommands(all, 'new sess').map((c) => c.id)).toEqual(['new-session']);
    expect(filterCommands(all, 'SETTINGS').map((c) => c.id)).toContain('settings');
    expect(filterCommands(all, 'zzz')).toEqual([]);
    // Label matches rank before matches found only in a hint ("F2 in the session list").
    const app2 = createAppStore();
    app2.getState().setSessions([{ id: 's1', createdAt: 0, updatedAt: 0, eventCount: 1, status: 'idle' }]);
    app2.getState().select('s1');
    const withSession = buildCommands({ state: app2.getState(), running: false, readOnly: false, approvalsPending: false }, effects);
    expect(filterCommands(withSession, 'session list')[0]!.id).toBe('go-sessions');
    expect(filterCommands(withSession, 'session list').map((c) => c.id)).toContain('rename');
  });
});

describe('provider readiness', () => {
  const view = (active: SettingsView['active'], keys: Record<string, boolean> = {}): SettingsView => ({
    presets: [
      { id: 'deepseek', label: 'DeepSeek', baseUrl: 'https://api.deepseek.com', models: [], needsKey: true, reasoningEfforts: [] },
      { id: 'custom', label: 'Custom', baseUrl: '', models: [], needsKey: false, reasoningEfforts: [] },
    ],
    active,
    approvalPolicy: 'ask',
    keys,
    dataDir: '/d',
    mcpServers: {},
  });

  it('needs settings, a base URL, a model, and a key where the provider needs one', () => {
    expect(providerReadiness(undefined)).toMatchObject({ ready: false, code: 'SETTINGS_UNKNOWN' });
    expect(providerReadiness(view({ provider: 'deepseek', baseUrl: 'https://api.deepseek.com', model: 'deepseek-v4-flash' }))).toMatchObject({ ready: false, code: 'MISSING_CREDENTIAL' });
    expect(providerReadiness(view({ provider: 'deepseek', baseUrl: 'https://api.deepseek.com', model: 'deepseek-v4-flash' }, { deepseek: true }))).toEqual({ ready: true });
    expect(providerReadiness(view({ provider: 'custom', baseUrl: '', model: 'm' }))).toMatchObject({ ready: false, code: 'NO_BASE_URL' });
    expect(providerReadiness(view({ provider: 'custom', baseUrl: 'http://127.0.0.1:1/v1', model: ' ' }))).toMatchObject({ ready: false, code: 'NO_MODEL' });
    expect(providerReadiness(view({ provider: 'custom', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' }))).toEqual({ ready: true });
  });
});
