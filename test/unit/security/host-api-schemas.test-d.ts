/**
 * Type test (checked by `tsc -p tsconfig.node.json`, no runtime): every HostApi param schema in
 * electron/host/api-schemas.ts accepts exactly the shape of its method's TypeScript param type —
 * what the schema lets through is assignable to the param type (the handler never sees a field it
 * does not declare, or a looser type), and every value of the param type the renderer may send is
 * assignable to the schema's input (the schema does not refuse a field the type allows).
 * Value limits (lengths, ranges) are the schema's alone and do not show in types.
 */
import type { z } from 'zod';
import type { HostMethodName, HostMethods } from '../../../shared/api.js';
import type { PARAM_SCHEMAS } from '../../../electron/host/api-schemas.js';

type Params<M extends HostMethodName> = Parameters<HostMethods[M]>[0];
type Schema<M extends HostMethodName> = (typeof PARAM_SCHEMAS)[M];

/** Methods whose parsed params are not assignable to the declared param type. */
type OutputMismatch = { [M in HostMethodName]: z.output<Schema<M>> extends Params<M> ? never : M }[HostMethodName];
/**
 * Methods whose declared param type is not accepted by the schema's input type. Params are compared
 * after dropping `readonly`: `updateSettings.mcpServers` is our readonly `JsonValue`, while
 * `z.json()`'s input type has mutable arrays and objects — the same values, spelt differently.
 */
type DeepMutable<T> = T extends readonly (infer E)[] ? DeepMutable<E>[] : T extends object ? { -readonly [K in keyof T]: DeepMutable<T[K]> } : T;
type InputMismatch = { [M in HostMethodName]: DeepMutable<Params<M>> extends z.input<Schema<M>> ? never : M }[HostMethodName];

/** Compiles only when `T` is `never`; the error names the offending methods. */
type Expect<T extends never> = T;
export type _SchemasMatchParamTypes = [Expect<OutputMismatch>, Expect<InputMismatch>];
