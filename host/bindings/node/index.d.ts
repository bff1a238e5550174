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
  /** The limit that stopped a command: `timeout`, `memory`, `output`, `instances`. */
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

export class Workspace {
  static open (path: string): Workspace
  static memory (): Workspace
  readonly fs: Fs
  exec (command: string | string[], options?: ExecOptions): Promise<ExecResult>
  execStream (command: string | string[], options?: ExecOptions): AsyncGenerator<ExecEvent, void, void>
  snapshot (name: string): Promise<void>
  restore (name: string): Promise<void>
  fork (name: string, path: string): Promise<Workspace>
  tools (options?: { readOnly?: boolean }): Tools
}
