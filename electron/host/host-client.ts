/**
 * What the {@link Host} knows of a client connection: where its live feed goes and how it ends.
 * The connection class (host-connection.ts) depends on the Host; the Host depends only on this
 * interface, and the composition root (runtime.ts) tells it how to make connections, so the two
 * files do not import each other (docs/architecture.md §2).
 */
import type { HostPush } from '../../shared/api.js';
import type { IDisposable } from '../../shared/lifecycle.js';
import type { HostHandlers } from './dispatch.js';

/** A client of the host as the host sees it: its feed and its end. */
export interface HostClient extends IDisposable {
  /** Sends one live-feed message to this client. */
  push(message: HostPush): void;
}

/** A connection a transport drives: every HostApi method plus the client's feed and end. */
export type ClientConnection = HostHandlers & HostClient;
