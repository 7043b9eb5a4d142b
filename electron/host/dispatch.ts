/**
 * Transport-neutral RPC dispatch: whitelist check, argument validation, call, and an
 * ok-with-value / not-ok-with-`{name, code, message}` response (STYLE S4, V6). Both transports
 * (Electron IPC, WebSocket) use this one function.
 */
import { z } from 'zod';
import { isHostMethod, type HostMethodName, type HostMethods, type RpcResponse } from '../../shared/api.js';
import { ForklineError } from '../../shared/errors.js';
import { HOST_PARAM_SCHEMAS } from './api-schemas.js';

/** A host implementation: every HostApi method, possibly async. */
export type HostHandlers = {
  [M in HostMethodName]: (params: Parameters<HostMethods[M]>[0]) => ReturnType<HostMethods[M]> | Promise<ReturnType<HostMethods[M]>>;
};

/** Handles one request; never throws. `context` is passed to methods that need the caller (subscriptions). */
export async function dispatch(handlers: HostHandlers, request: { readonly id: number; readonly method: unknown; readonly params: unknown }): Promise<RpcResponse> {
  const { id } = request;
  if (!isHostMethod(request.method)) {
    return { id, ok: false, error: { name: 'HostError', code: 'UNKNOWN_METHOD', message: `unknown host method ${JSON.stringify(request.method)}` } };
  }
  const method = request.method;
  const parsed = HOST_PARAM_SCHEMAS[method].safeParse(request.params ?? {});
  if (!parsed.success) {
    return { id, ok: false, error: { name: 'HostError', code: 'INVALID_PARAMS', message: `invalid params for ${method}: ${z.prettifyError(parsed.error)}` } };
  }
  try {
    const handler = handlers[method] as (params: unknown) => unknown;
    const result = await handler.call(handlers, parsed.data);
    return { id, ok: true, result: result ?? null };
  } catch (error) {
    if (ForklineError.isInstance(error)) return { id, ok: false, error: error.toRecord() };
    const message = error instanceof Error ? error.message : String(error);
    return { id, ok: false, error: { name: error instanceof Error ? error.name : 'Error', code: 'INTERNAL', message } };
  }
}
