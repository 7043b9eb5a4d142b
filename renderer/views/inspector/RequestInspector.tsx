/**
 * The request inspector: what the model received in one step, rebuilt by the host from the log
 * prefix (`inspectRequest`): the header (provider, model, params, system prompt, tools) and the
 * exact messages (role, content blocks including reasoning and tool calls).
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { RequestSnapshot } from '../../../shared/api.js';
import type { ContentBlock, Message } from '../../../shared/messages.js';
import { prettyArgs } from '../../../shared/tool-view.js';
import { describeError } from '../../host/host-client.js';
import { useApp, useClient, useSession } from '../context.js';

function Block({ block }: { readonly block: ContentBlock }): ReactNode {
  switch (block.type) {
    case 'text':
      return <pre className="block block-text" tabIndex={0}>{block.text}</pre>;
    case 'reasoning':
      return (
        <details className="block block-reasoning">
          <summary>reasoning ({block.text.length} chars)</summary>
          <pre tabIndex={0}>{block.text}</pre>
        </details>
      );
    case 'tool-call':
      return (
        <div className="block block-tool-call">
          <div className="mono">
            tool-call <b>{block.name}</b> <span className="muted">{block.id}</span>
          </div>
          <pre className="json" tabIndex={0}>{prettyArgs(block.arguments)}</pre>
        </div>
      );
    case 'tool-result':
      return (
        <div className={`block block-tool-result${block.isError ? ' error' : ''}`}>
          <div className="mono">
            tool-result <span className="muted">{block.toolCallId}</span> {block.isError && <span className="badge badge-bad">isError</span>}
          </div>
          <pre tabIndex={0}>{block.content.map((c) => c.text).join('')}</pre>
        </div>
      );
    default:
      return (
        <pre className="json" tabIndex={0}>
          {JSON.stringify(block, null, 2)}
        </pre>
      );
  }
}

function MessageView({ message, index }: { readonly message: Message; readonly index: number }): ReactNode {
  return (
    <div className={`request-message role-${message.role}`} data-testid="request-message" data-role={message.role} data-source={message.source.kind}>
      <div className="request-message-head mono">
        <span>#{index}</span> <b>{message.role}</b> <span className="muted">{message.source.kind}</span>
      </div>
      {message.content.map((block, i) => (
        <Block key={i} block={block} />
      ))}
    </div>
  );
}

export function RequestInspector(): ReactNode {
  const target = useApp((s) => s.requestTarget);
  const close = useApp((s) => s.inspectRequest);
  const sessionId = useSession((s) => s.sessionId);
  const client = useClient();
  const [state, setState] = useState<{ key: string; snapshot?: RequestSnapshot; error?: string } | undefined>();
  const key = target ? `${sessionId}:${target.turn}.${target.step}` : '';
  useEffect(() => {
    if (!target) return;
    let live = true;
    setState({ key });
    client.inspectRequest({ sessionId, turn: target.turn, step: target.step }).then(
      (snapshot) => live && setState({ key, snapshot }),
      (error: unknown) => live && setState({ key, error: describeError(error) }),
    );
    return () => {
      live = false;
    };
  }, [client, key, sessionId, target]);
  if (!target) return null;
  const current = state?.key === key ? state : undefined;
  const snapshot = current?.snapshot;
  const header = snapshot?.header;
  const config = header?.config;
  return (
    <aside className="side-panel request-inspector" data-testid="request-inspector" aria-label="Request">
      <header className="panel-head">
        <span className="panel-title">
          Request · step {target.turn}.{target.step}
        </span>
        <span className="spacer" />
        <button type="button" className="icon-button" data-testid="request-inspector-close" aria-label="Close" onClick={() => close(undefined)}>
          ✕
        </button>
      </header>
      <div className="panel-body">
        {!current || (!snapshot && !current.error) ? (
          <div className="muted" data-testid="request-loading">
            Rebuilding the request from the log…
          </div>
        ) : current.error ? (
          <div className="error-text" data-testid="request-error">
            {current.error}
          </div>
        ) : (
          <>
            <section data-testid="request-header">
              <div className="section-label">header</div>
              {config ? (
                <dl className="raw-fields">
                  <dt>provider</dt>
                  <dd className="mono">{config.provider}</dd>
                  <dt>model</dt>
                  <dd className="mono">{config.model}</dd>
                  {config.reasoningEffort !== undefined && (
                    <>
                      <dt>reasoning effort</dt>
                      <dd className="mono">{config.reasoningEffort}</dd>
                    </>
                  )}
                  {config.temperature !== undefined && (
                    <>
                      <dt>temperature</dt>
                      <dd className="mono">{config.temperature}</dd>
                    </>
                  )}
                  {config.maxTokens !== undefined && (
                    <>
                      <dt>max tokens</dt>
                      <dd className="mono">{config.maxTokens}</dd>
                    </>
                  )}
                  <dt>at seq</dt>
                  <dd className="mono">{snapshot?.atSeq}</dd>
                </dl>
              ) : (
                <div className="muted">No request header was logged before this step.</div>
              )}
            </section>
            {header?.system !== undefined && (
              <details className="request-system" data-testid="request-system">
                <summary>system prompt ({header.system.length} chars)</summary>
                <pre tabIndex={0}>{header.system}</pre>
              </details>
            )}
            <details className="request-tools" data-testid="request-tools">
              <summary>tools ({header?.tools?.length ?? 0})</summary>
              {(header?.tools ?? []).map((tool) => (
                <details key={tool.name} className="request-tool" data-testid="request-tool" data-name={tool.name}>
                  <summary>
                    <b className="mono">{tool.name}</b> <span className="muted">{tool.description}</span>
                  </summary>
                  <pre className="json" tabIndex={0}>
                    {JSON.stringify(tool.parameters, null, 2)}
                  </pre>
                </details>
              ))}
            </details>
            <div className="section-label">messages ({snapshot?.messages.length ?? 0})</div>
            {snapshot?.messages.map((m, i) => (
              <MessageView key={i} message={m} index={i} />
            ))}
          </>
        )}
      </div>
    </aside>
  );
}
