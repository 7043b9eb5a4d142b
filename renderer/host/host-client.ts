/**
 * The typed host client: a Proxy that turns `client.method(params)` into
 * `bridge.call({method, params})` and unwraps the `RpcResponse` envelope. A failed call rejects
 * with a {@link HostCallError} that keeps the host's `{name, code, message}`, so UI decisions read
 * `code`, never message text. Only methods in `HOST_METHODS` exist on the client.
 *
 * Runtime-neutral (no DOM): the bridge is `window.forkline` (Electron preload) or the WebSocket
 * bridge (browser mode), chosen by `renderer/host/connect.ts`.
 */
import { isHostMethod, type HostBridge, type HostClient, type HostMethodName } from '../../shared/api.js';
import { ForklineError, type ErrorRecord } from '../../shared/errors.js';

/** A host call that answered `ok: false` (or could not be answered at all). */
export class HostCallError extends ForklineError {
  constructor(
    record: ErrorRecord,
    readonly method: string,
  ) {
    super(record.code, record.message);
    this.name = record.name;
  }

  static is(value: unknown, code?: string): value is HostCallError {
    return value instanceof HostCallError && (code === undefined || value.code === code);
  }
}

/** Codes the client itself produces (the host's own codes pass through unchanged). */
export const CLIENT_ERROR_CODES = {
  /** The transport is down; the call may not have reached the host. */
  unreachable: 'HOST_UNREACHABLE',
  /** No answer within the call timeout. */
  timeout: 'HOST_TIMEOUT',
  /** The answer was not a well-formed RpcResponse. */
  badResponse: 'BAD_RESPONSE',
} as const;

function readErrorRecord(value: unknown): ErrorRecord {
  const o = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  return {
    name: typeof o['name'] === 'string' ? o['name'] : 'HostError',
    code: typeof o['code'] === 'string' ? o['code'] : 'UNKNOWN',
    message: typeof o['message'] === 'string' ? o['message'] : 'the host reported an error without a message',
  };
}

/**
 * Unwraps one response: the result for `ok: true`; throws HostCallError for `ok: false` or for a
 * malformed envelope.
 */
export function unwrapResponse(method: string, response: unknown): unknown {
  const o = response !== null && typeof response === 'object' ? (response as Record<string, unknown>) : undefined;
  if (!o || typeof o['ok'] !== 'boolean') {
    throw new HostCallError({ name: 'HostProtocolError', code: CLIENT_ERROR_CODES.badResponse, message: `malformed response to ${method}` }, method);
  }
  if (o['ok'] === true) return o['result'];
  throw new HostCallError(readErrorRecord(o['error']), method);
}

/** Wraps any thrown value from a bridge as a HostCallError. */
function asCallError(method: string, error: unknown): HostCallError {
  if (error instanceof HostCallError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new HostCallError({ name: 'HostUnreachableError', code: CLIENT_ERROR_CODES.unreachable, message }, method);
}

export function createHostClient(bridge: HostBridge): HostClient {
  const methods = new Map<string, (params: unknown) => Promise<unknown>>();
  const onPush: HostClient['onPush'] = (listener) => bridge.onPush(listener);
  const get = (_target: object, prop: string | symbol): unknown => {
    if (prop === 'onPush') return onPush;
    if (typeof prop !== 'string' || !isHostMethod(prop)) return undefined;
    let fn = methods.get(prop);
    if (!fn) {
      const method: HostMethodName = prop;
      fn = async (params: unknown) => {
        let response: unknown;
        try {
          response = await bridge.call({ method, params: params ?? {} });
        } catch (error) {
          throw asCallError(method, error);
        }
        return unwrapResponse(method, response);
      };
      methods.set(prop, fn);
    }
    return fn;
  };
  return new Proxy({}, { get, has: (_t, prop) => prop === 'onPush' || (typeof prop === 'string' && isHostMethod(prop)) }) as HostClient;
}

/** A short message for showing an error to a person (code in brackets). */
export function describeError(error: unknown): string {
  if (error instanceof ForklineError) return `${error.message} [${error.code}]`;
  if (error instanceof Error) return error.message;
  return String(error);
}
