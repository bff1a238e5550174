// Types of the `computer` package for Node.js (index.js over the computer.node addon).
// Bytes are Uint8Arrays at run time; they are typed as Uint8Array (Uint8Array's base class) so that
// these types check without @types/node.

export type Backend = 'auto' | 'isolate' | 'container'

export interface ExecOptions {
  /** Working directory (default /workspace). */
  cwd?: string
  /** Environment variables; nothing is inherited from the host. */
  env?: Record<string, string>
  /** Standard input. */
  stdin?: string | Uint8Array
  /** `auto` (default): the isolate, the container for what it cannot run. */
  backend?: Backend
  /** Time limit in milliseconds (default 60,000). */
  timeoutMs?: number
  /** Aborting it stops the command (status 130). */
  signal?: AbortSignal
}

export interface ExecResult {
  /** The status a shell would report (124 after a timeout, 130 when cancelled). */
  status: number
  stdout: Uint8Array
  stderr: Uint8Array
  ended: 'exited' | 'timeout' | 'memory' | 'output' | 'instances' | 'crashed' | 'cancelled'
  /** stdout as UTF-8. */
  readonly text: string
}

export type ExecEvent =
  | { kind: 'stdout' | 'stderr', data: Uint8Array }
  | { kind: 'exit', status: number, result: ExecResult }

/** What the Promises reject with. */
export interface ComputerError extends Error {
  /** `ENOENT`, `EISDIR`... for a filesystem error; `ERR_COMPUTER_LIMIT`, `ERR_INVALID_ARG_VALUE`, `ERR_COMPUTER`. */
  code: string
  /** The limit that stopped the call: `timeout`, `memory`, `output`, `instances` (a command), `jobs` (background commands at once), `file_size` (a bucket object). */
  limit?: string
  /** What the command wrote before a limit stopped it. */
  result?: ExecResult
}

export interface Entry {
  name: string
  kind: 'file' | 'dir' | 'symlink' | 'fifo' | 'socket' | 'char-device' | 'block-device'
}

export interface Fs {
  readFile (path: string): Promise<Uint8Array>
  readText (path: string): Promise<string>
  writeFile (path: string, data: string | Uint8Array): Promise<void>
  list (path: string): Promise<Entry[]>
  exists (path: string): Promise<boolean>
  mkdir (path: string): Promise<void>
  remove (path: string, options?: { recursive?: boolean }): Promise<void>
  // On the calling thread, as Node's fs.*Sync: no Promise, the event loop waits.
  readFileSync (path: string): Uint8Array
  readTextSync (path: string): string
  writeFileSync (path: string, data: string | Uint8Array): void
  listSync (path: string): Entry[]
  existsSync (path: string): boolean
  mkdirSync (path: string): void
  removeSync (path: string, options?: { recursive?: boolean }): void
}

export interface GitResult {
  status: number
  stdout: Uint8Array
  stderr: Uint8Array
  /** stdout as UTF-8. */
  readonly text: string
}

export interface Git {
  /** Runs `git ARGS` in `cwd` (default /workspace). */
  run (args: string[], options?: { cwd?: string, env?: Record<string, string> }): Promise<GitResult>
  /** Clones `url` into `dest`; rejects with git's message when it fails. */
  clone (url: string, dest: string): Promise<void>
}

export interface Net {
  /** Allows `rule` (`https://pypi.org`, `git://127.0.0.1:9418`, `all`) for `methods` (all by default): the policy after, as text. */
  allow (rule: string, methods?: string[]): string
  /** Refuses `rule` even where an allow rule covers it: the policy after, as text. */
  deny (rule: string, methods?: string[]): string
  /** `all`, `allow RULE` and `deny RULE` lines (empty: nothing is reachable). */
  policy (): string
}

/** Where a bucket is and how to sign for it; unset: the host's AWS variables and secret store. */
export interface StoreOptions {
  endpoint?: string
  region?: string
  accessKeyId?: string
  secretAccessKey?: string
  /** Allow a plain-HTTP endpoint. */
  allowHttp?: boolean
}

export interface BucketStats {
  /** Objects downloaded or uploaded. */
  transferred: number
  bytes: number
  /** Files already identical in the bucket (export). */
  unchanged: number
  /** Objects removed from the bucket (export with `delete`). */
  deleted: number
  /** Paths left out of an export: symbolic links, FIFOs, sockets, devices. */
  skipped: string[]
}

/** A command running in the background. */
export class Job {
  readonly id: number
  readonly command: string
  /** The exit status once ended, else undefined; throws if it could not run. */
  readonly status: number | undefined
  readonly running: boolean
  /** Output written since the last `read`. */
  read (): { stdout: Uint8Array, stderr: Uint8Array }
  /** Waits for the end (at most `timeoutMs`): the status, or undefined if it still runs. */
  wait (timeoutMs?: number): Promise<number | undefined>
  /** Ends it (status 130). */
  kill (): void
}

/** A tool in the shape the AI SDK's `tool()` takes (wrap `inputSchema` with `jsonSchema()`). */
export interface AiSdkTool {
  description: string
  inputSchema: Record<string, unknown>
  execute (args: unknown, options?: { abortSignal?: AbortSignal }): Promise<string>
}

export class Tools {
  openai (): Array<{ type: 'function', function: { name: string, description: string, parameters: Record<string, unknown> } }>
  anthropic (): Array<{ name: string, description: string, input_schema: Record<string, unknown> }>
  mcp (): Array<{ name: string, description: string, inputSchema: Record<string, unknown>, annotations: { readOnlyHint: boolean } }>
  aiSdk (): Record<string, AiSdkTool>
  call (name: string, args: Record<string, unknown> | string, options?: { signal?: AbortSignal }): Promise<string>
}

/** Runs commands: a workspace's fresh shell, or a session's lasting one. */
export class Shell {
  exec (command: string | string[], options?: ExecOptions): Promise<ExecResult>
  /** As `exec`, on the calling thread: no Promise, the event loop waits (`signal` is not used). */
  execSync (command: string | string[], options?: ExecOptions): ExecResult
  execStream (command: string | string[], options?: ExecOptions): AsyncGenerator<ExecEvent, void, void>
}

/** A shell whose variables, functions and working directory last from one exec to the next. */
export class Session extends Shell {}

export class Workspace extends Shell {
  static open (path: string): Workspace
  static memory (): Workspace
  readonly fs: Fs
  readonly git: Git
  readonly net: Net
  session (): Session
  spawn (command: string | string[], options?: ExecOptions): Job
  jobs (): Job[]
  importBucket (url: string, dest?: string, options?: StoreOptions): Promise<BucketStats>
  exportBucket (src: string, url: string, options?: StoreOptions & { delete?: boolean }): Promise<BucketStats>
  /** Uploads snapshot `name` (taken now if there is none) to `url`: only the chunks the bucket lacks. */
  pushSnapshot (name: string, url: string, options?: StoreOptions): Promise<{ entries: number, chunks: number, chunksUploaded: number, bytesUploaded: number }>
  /** A new workspace file at `path` rebuilt from snapshot `name` in `url`. */
  static pullSnapshot (name: string, url: string, path: string, options?: StoreOptions): Promise<Workspace>
  snapshot (name: string): Promise<void>
  restore (name: string): Promise<void>
  fork (name: string, path: string): Promise<Workspace>
  tools (options?: { readOnly?: boolean }): Tools
}
