/**
 * The branch picker (docs/architecture.md §10): the fork tree of the open session's lineage — its root session
 * and every fork below it, indented — each labelled by its title and the first prompt typed after
 * its fork point. The open session is highlighted; clicking a node opens it. Two nodes can be
 * ticked and compared, or any node compared with the open session.
 */
import { memo, useMemo, useState, type FocusEvent, type KeyboardEvent, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { branchTree, forkPairs, type BranchNode } from '../../../shared/branch-tree.js';
import { focusAfterRender } from '../../keyboard/focus-after-render.js';
import { regionTarget } from '../../keyboard/focus-regions.js';
import { useApp, useClient } from '../context.js';
import { Badge } from '../timeline/badges.js';
import { useForkPrompts } from './use-fork-prompts.js';

interface NodeProps {
  readonly node: BranchNode;
  readonly openId: string;
  readonly checked: boolean;
  readonly comparing: boolean;
  /** Holds the tree's Tab stop (roving tabindex). */
  readonly active: boolean;
  readonly onCheck: (id: string, checked: boolean) => void;
}

const BranchNodeRow = memo(function BranchNodeRow({ node, openId, checked, comparing, active, onCheck }: NodeProps): ReactNode {
  const select = useApp((s) => s.select);
  const openCompare = useApp((s) => s.openCompare);
  const { session, depth } = node;
  const tooltip = [
    node.title,
    node.prompt ? `first prompt after the fork: ${node.prompt}` : undefined,
    session.cwd,
    session.seedLength !== undefined ? `forked at event #${session.seedLength}` : 'root session',
    `${session.eventCount} events`,
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <li
      role="treeitem"
      aria-level={depth + 1}
      aria-selected={node.isOpen}
      aria-current={node.isOpen ? 'true' : undefined}
      className={`branch-node${node.isOpen ? ' open' : ''}${comparing ? ' comparing' : ''}`}
      data-testid="branch-node"
      data-session-id={session.id}
      data-depth={depth}
      data-root={node.isRoot ? 'true' : 'false'}
      data-open={node.isOpen ? 'true' : 'false'}
      data-own-folder={node.ownFolder ? 'true' : 'false'}
      data-parent-id={node.parentId}
      style={{ paddingLeft: 8 + depth * 18 }}
      title={tooltip}
      tabIndex={active ? 0 : -1}
      {...(active ? { 'data-focus-default': '' } : {})}
      onClick={() => select(session.id, { keepBranches: true })}
      onKeyDown={(e) => {
        if (e.target !== e.currentTarget) return;
        if (e.key === 'Enter') {
          e.preventDefault();
          select(session.id, { keepBranches: true });
        } else if (e.key === ' ') {
          e.preventDefault();
          onCheck(session.id, !checked);
        }
      }}
    >
      <input
        type="checkbox"
        className="branch-check"
        data-testid="branch-node-check"
        tabIndex={active ? 0 : -1}
        aria-label={`Select ${node.title} for comparison`}
        checked={checked}
        onClick={(e) => e.stopPropagation()}
        onChange={(e) => onCheck(session.id, e.target.checked)}
      />
      {depth > 0 && (
        <span className="lineage" aria-hidden="true">
          └
        </span>
      )}
      <span className={`status-dot ${session.status}`} title={session.status} />
      <span className="branch-node-text">
        <span className="branch-node-title">
          <span className="branch-node-name" data-testid="branch-node-title">
            {node.title}
          </span>
          {node.isRoot && <Badge tone="muted">root</Badge>}
          {node.ownFolder && (
            <Badge tone="info" testId="branch-node-own-folder" title={`works in its own folder: ${session.cwd ?? ''}`}>
              own folder
            </Badge>
          )}
        </span>
        {node.prompt !== undefined ? (
          <span className="branch-node-prompt" data-testid="branch-node-prompt" data-state="ready">
            {node.isRoot ? 'continues: ' : ''}“{node.prompt}”
          </span>
        ) : node.promptNote !== undefined ? (
          <span className="branch-node-prompt muted" data-testid="branch-node-prompt" data-state={node.promptNote.startsWith('loading') ? 'loading' : 'none'}>
            {node.promptNote}
          </span>
        ) : null}
      </span>
      {!node.isOpen && (
        <button
          type="button"
          className="link-button branch-compare"
          data-testid="branch-compare-button"
          tabIndex={active ? 0 : -1}
          title="Compare the open session with this one"
          onClick={(e) => {
            e.stopPropagation();
            openCompare(openId, session.id);
          }}
        >
          compare
        </button>
      )}
    </li>
  );
});

export function BranchPicker(): ReactNode {
  const client = useClient();
  const { sessions, sessionsState, openId, compare } = useApp(useShallow((s) => ({ sessions: s.sessions, sessionsState: s.sessionsState, openId: s.selectedId, compare: s.compare })));
  const setBranchesOpen = useApp((s) => s.setBranchesOpen);
  const openBoard = useApp((s) => s.openBoard);
  const pairs = useMemo(() => (openId ? forkPairs(sessions, openId) : []), [sessions, openId]);
  const prompts = useForkPrompts(client, pairs, sessions);
  const nodes = useMemo(() => (openId ? branchTree(sessions, openId, prompts) : []), [sessions, openId, prompts]);
  // Ticked nodes (at most eight, the board's columns; a ninth drops the oldest), kept only while they are in the tree.
  const [ticked, setTicked] = useState<readonly string[]>([]);
  const checked = useMemo(() => ticked.filter((id) => nodes.some((n) => n.session.id === id)), [ticked, nodes]);
  const onCheck = (id: string, on: boolean): void => setTicked((prev) => (on ? [...prev.filter((x) => x !== id), id].slice(-8) : prev.filter((x) => x !== id)));
  const comparing = new Set(compare ? [compare.a, compare.b] : []);
  // Keyboard: one Tab stop in the tree (the node last moved to, else the open one); ↑/↓/Home/End move.
  const [focusId, setFocusId] = useState<string | undefined>();
  const activeId = nodes.some((n) => n.session.id === focusId) ? focusId : nodes.some((n) => n.session.id === openId) ? openId : nodes[0]?.session.id;
  const onTreeFocus = (e: FocusEvent<HTMLUListElement>): void => {
    const id = (e.target as HTMLElement).closest<HTMLElement>('[data-testid="branch-node"]')?.dataset['sessionId'];
    if (id && id !== activeId) setFocusId(id);
  };
  const onTreeKey = (e: KeyboardEvent<HTMLUListElement>): void => {
    const item = (e.target as HTMLElement).closest<HTMLElement>('[data-testid="branch-node"]');
    if (!item || item !== e.target) return;
    const i = nodes.findIndex((n) => n.session.id === item.dataset['sessionId']);
    const next = e.key === 'ArrowDown' ? Math.min(nodes.length - 1, i + 1) : e.key === 'ArrowUp' ? Math.max(0, i - 1) : e.key === 'Home' ? 0 : e.key === 'End' ? nodes.length - 1 : undefined;
    if (next === undefined) return;
    e.preventDefault();
    const id = nodes[next]!.session.id;
    setFocusId(id);
    (e.currentTarget.querySelector(`[data-testid="branch-node"][data-session-id="${CSS.escape(id)}"]`) as HTMLElement | null)?.focus();
  };

  let body: ReactNode;
  if (!openId) {
    body = (
      <div className="sidebar-state" data-testid="branch-picker-empty">
        Open a session to see its branches.
      </div>
    );
  } else if (nodes.length === 0) {
    body = (
      <div className={`sidebar-state${sessionsState === 'error' ? ' error' : ''}`} data-testid={sessionsState === 'error' ? 'branch-picker-error' : 'branch-picker-loading'}>
        {sessionsState === 'error' ? 'Could not list sessions.' : 'Loading branches…'}
      </div>
    );
  } else {
    body = (
      <>
        <ul className="branch-tree" role="tree" aria-label="Fork tree" data-testid="branch-tree" onKeyDown={onTreeKey} onFocus={onTreeFocus}>
          {nodes.map((node) => (
            <BranchNodeRow
              key={node.session.id}
              node={node}
              openId={openId}
              checked={checked.includes(node.session.id)}
              comparing={comparing.has(node.session.id)}
              active={node.session.id === activeId}
              onCheck={onCheck}
            />
          ))}
        </ul>
        {nodes.length === 1 && (
          <div className="sidebar-state" data-testid="branch-picker-hint">
            No forks yet. Use <b>fork here</b> under a finished turn to branch this session.
          </div>
        )}
      </>
    );
  }

  return (
    <aside className="side-panel branch-panel" data-testid="branch-picker" aria-label="Branches">
      <div className="panel-head">
        <span className="panel-title">Branches</span>
        {/* A count badge, not "N sessions" text: a narrow panel cut that to "2 sessi…". */}
        {nodes.length > 0 && (
          <span className="badge badge-muted" data-testid="branch-count" title={nodes.length === 1 ? '1 session in this tree' : `${nodes.length} sessions in this tree`}>
            {nodes.length}
          </span>
        )}
        <span className="spacer" />
        <button
          type="button"
          className="small"
          data-testid="branch-compare-selected"
          disabled={checked.length < 2}
          title={checked.length >= 2 ? `Compare the ${checked.length} ticked sessions side by side` : 'Tick 2 to 8 sessions to compare them'}
          onClick={() => openBoard({ ids: checked })}
        >
          Compare {checked.length}/8
        </button>
        <button type="button" className="icon-button" data-testid="branch-picker-close" aria-label="Close branches" title="Close" onClick={() => setBranchesOpen(false)}>
          ✕
        </button>
      </div>
      <div className="panel-body branch-panel-body">{body}</div>
    </aside>
  );
}

/** The header button that shows or hides the branch picker; opening it moves focus into the panel. */
export function BranchesToggle(): ReactNode {
  const open = useApp((s) => s.branchesOpen);
  const setOpen = useApp((s) => s.setBranchesOpen);
  return (
    <button
      type="button"
      className={`small${open ? ' active' : ''}`}
      data-testid="branches-toggle"
      aria-pressed={open}
      title="Show the fork tree of this session"
      onClick={(e) => {
        setOpen(!open);
        // Opened, focus goes into the panel (its open node), not to whatever the layout change left it on.
        if (!open) focusAfterRender(regionTarget('dock'), { from: e.currentTarget });
      }}
    >
      Branches
    </button>
  );
}
