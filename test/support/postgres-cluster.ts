/**
 * A real, throwaway PostgreSQL server for tests and benchmarks (issue 27: "real server in tests").
 *
 * The server refuses to run as root, and tests here run as root, so the cluster is created and run
 * as the `postgres` system user (Debian's package creates it; any other user runs it as themselves): `initdb` into a fresh temporary
 * folder owned by that user, then `pg_ctl start` on a free local port with the socket in the same
 * folder. Authentication: `trust` on the Unix socket (the superuser connection the tests use to set
 * up roles and databases) and `scram-sha-256` on 127.0.0.1, so team roles connect over TCP with a
 * real password, as users would.
 *
 * One cluster per test process: {@link sharedPostgres} starts it on first use, and the test files that
 * process runs share it (integration files share worker processes, vitest.config.ts); it stops when
 * the process exits, and a detached watchdog stops it when the process is gone however it ended. Each
 * test takes its own database ({@link PgCluster.createDatabase}); roles are the cluster's, so
 * {@link PgCluster.createRole} is idempotent. A file does not stop the shared cluster.
 * `stop()` removes the folder. CI installs Debian's `postgresql` when `initdb` is missing (.ci/run).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where Debian puts the server binaries (initdb and pg_ctl are also on PATH on this machine). */
const PG_BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

/** A running throwaway cluster. */
export interface PgCluster {
  readonly port: number;
  /** The folder holding the data directory and the socket. */
  readonly dir: string;
  /** Connection string of the superuser (`postgres`, over the Unix socket) for database `db`. */
  superuserUrl(db?: string): string;
  /** Connection string for `role` with `password` over TCP on 127.0.0.1. */
  roleUrl(role: string, password: string, db: string): string;
  /** Runs SQL as the superuser in `db` (default `postgres`). */
  admin<T>(db: string, fn: (client: pg.Client) => Promise<T>): Promise<T>;
  /** A fresh empty database; returns its name. */
  createDatabase(prefix?: string): Promise<string>;
  /** Creates a LOGIN role with a password (idempotent: an existing role gets the password). */
  createRole(role: string, password: string): Promise<void>;
  /** Stops the server (fast shutdown) and removes its folder. Idempotent. */
  stop(): void;
  /** Takes the server down (fast shutdown), keeping its data: a server that went away. */
  stopServer(): void;
  /** Starts it again on the same port after {@link stopServer}. @throws Error when it does not start. */
  startServer(): void;
}

function binary(name: string): string {
  for (const dir of PG_BIN_DIRS) if (existsSync(join(dir, name))) return join(dir, name);
  return name;
}

/** True when PostgreSQL's server binaries are installed here. */
export function postgresAvailable(): boolean {
  return PG_BIN_DIRS.some((dir) => existsSync(join(dir, 'initdb'))) || spawnSync('sh', ['-c', 'command -v initdb'], { stdio: 'ignore' }).status === 0;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** As root: through `runuser -u postgres` (the server refuses root); as anyone else: as themselves. */
function asServerUser(args: readonly string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...args]] : [args[0]!, args.slice(1)];
}

function asPostgres(args: readonly string[], options: { allowFail?: boolean } = {}): string {
  const [command, argv] = asServerUser(args);
  const run = spawnSync(command, argv, { encoding: 'utf8' });
  if (run.status !== 0 && !options.allowFail) throw new Error(`${args.join(' ')} failed (${run.status}): ${run.stderr || run.stdout}`);
  return run.stdout;
}

/**
 * Creates and starts a cluster. Retries on another port when the chosen one was taken meanwhile
 * (other test processes pick ports too).
 * @throws Error when PostgreSQL is not installed or the server does not start.
 */
export async function startPostgresCluster(): Promise<PgCluster> {
  if (!postgresAvailable()) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'forkline-pg-'));
  chmodSync(dir, 0o700);
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
  const data = join(dir, 'data');
  asPostgres([binary('initdb'), '-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync']);
  let port = 0;
  let serverOptions = '';
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60 -c shared_buffers=64MB`;
    const [command, argv] = asServerUser([binary('pg_ctl'), '-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    const started = spawnSync(command, argv, { encoding: 'utf8' });
    serverOptions = options;
    if (started.status === 0) break;
    if (attempt >= 4) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`pg_ctl start failed: ${started.stderr || started.stdout}`);
    }
  }
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    asPostgres([binary('pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop'], { allowFail: true });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  // A watchdog outside this process stops the server when the process is gone, however it ended
  // (a test runner that kills its workers, SIGKILL): no cluster outlives the run that started it.
  const pgCtl = binary('pg_ctl');
  const stopCommand = process.getuid?.() === 0 ? `runuser -u postgres -- ${pgCtl} -D ${data} -m immediate -w stop` : `${pgCtl} -D ${data} -m immediate -w stop`;
  const watchdog = spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null && [ -d ${dir} ]; do sleep 1; done; [ -d ${dir} ] && { ${stopCommand}; rm -rf ${dir}; }; exit 0`], {
    detached: true,
    stdio: 'ignore',
  });
  watchdog.unref();
  const superuserUrl = (db = 'postgres'): string => `postgres://postgres@localhost/${db}?host=${encodeURIComponent(dir)}&port=${port}`;
  let databases = 0;
  const cluster: PgCluster = {
    port,
    dir,
    superuserUrl,
    roleUrl: (role, password, db) => `postgres://${encodeURIComponent(role)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`,
    admin: async (db, fn) => {
      const client = new pg.Client({ connectionString: superuserUrl(db) });
      await client.connect();
      try {
        return await fn(client);
      } finally {
        await client.end();
      }
    },
    createDatabase: async (prefix = 'team') => {
      const name = `${prefix}_${process.pid}_${++databases}`;
      await cluster.admin('postgres', (c) => c.query(`CREATE DATABASE ${name}`));
      return name;
    },
    createRole: async (role, password) => {
      await cluster.admin('postgres', async (c) => {
        const exists = await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
        const quoted = c.escapeIdentifier(role);
        const secret = c.escapeLiteral(password);
        await c.query(exists.rowCount ? `ALTER ROLE ${quoted} LOGIN PASSWORD ${secret}` : `CREATE ROLE ${quoted} LOGIN PASSWORD ${secret}`);
      });
    },
    stop,
    stopServer: () => void asPostgres([binary('pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop']),
    startServer: () => void asPostgres([binary('pg_ctl'), '-D', data, '-o', serverOptions, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']),
  };
  // A marker so a folder left by a killed run can be recognised (and removed) by hand.
  writeFileSync(join(dir, 'FORKLINE-TEST-CLUSTER'), `${process.pid}\n`);
  return cluster;
}

let shared: Promise<PgCluster> | undefined;

/** The cluster of this test process, started on first use and stopped when the process exits. */
export function sharedPostgres(): Promise<PgCluster> {
  shared ??= startPostgresCluster();
  return shared;
}
