'use strict'
// The `computer` package for Node.js: the workspace in process. The addon (computer.node,
// built by cargo from this folder's crate) does the work off the JavaScript thread; this
// file gives the API its shape: Promises that reject with an Error carrying `code`
// ('ENOENT'...) and `limit`, an async iterator for streaming, AbortSignal support, and the
// tools in the shapes the AI SDK and MCP take.

const native = require(process.env.COMPUTER_NODE_ADDON || './computer.node')

/** Throws a failed reply as an Error with `code` (and `limit`, `result` for a limit). */
function unwrap (reply) {
  if (reply.ok) return reply
  const error = new Error(reply.message)
  error.code = reply.code
  if (reply.limit) {
    error.limit = reply.limit
    error.result = result(reply)
  }
  throw error
}

function result (reply) {
  return {
    status: reply.status,
    stdout: reply.stdout,
    stderr: reply.stderr,
    ended: reply.ended,
    get text () { return reply.stdout.toString('utf8') }
  }
}

/** A Cancel tied to `signal` (aborting it stops the command), or none. */
function cancelFor (signal) {
  if (!signal) return undefined
  const cancel = new native.Cancel()
  if (signal.aborted) cancel.cancel()
  else signal.addEventListener('abort', () => cancel.cancel(), { once: true })
  return cancel
}

function execOptions (options = {}) {
  const { cwd, env, stdin, backend, timeoutMs } = options
  return { cwd, env, stdin, backend, timeoutMs }
}

class Tools {
  constructor (ws, readOnly) {
    this._ws = ws
    this._readOnly = !!readOnly
  }

  /** OpenAI Chat Completions `tools`. */
  openai () { return JSON.parse(this._ws._native.toolDefinitions('openai', this._readOnly)) }
  /** Anthropic Messages API `tools`. */
  anthropic () { return JSON.parse(this._ws._native.toolDefinitions('anthropic', this._readOnly)) }
  /** MCP `tools/list` entries. */
  mcp () { return JSON.parse(this._ws._native.toolDefinitions('mcp', this._readOnly)) }

  /** Runs tool `name` with `args` (an object or its JSON text): the text for the model. */
  async call (name, args, options = {}) {
    const json = typeof args === 'string' ? args : JSON.stringify(args ?? {})
    const reply = unwrap(await this._ws._native.toolCall(name, json, this._readOnly, cancelFor(options.signal)))
    return reply.text
  }

  /**
   * The tools in the shape the AI SDK's `tool()` takes (`description`, `inputSchema` as JSON
   * schema, `execute`), keyed by name: wrap each schema with the SDK's `jsonSchema()`.
   */
  aiSdk () {
    const out = {}
    for (const t of this.anthropic()) {
      out[t.name] = {
        description: t.description,
        inputSchema: t.input_schema,
        execute: (args, options = {}) => this.call(t.name, args, { signal: options.abortSignal })
      }
    }
    return out
  }
}

class Workspace {
  constructor (handle) { this._native = handle }

  /** Opens the workspace file at `path`, creating it if missing. */
  static open (path) { return new Workspace(native.Workspace.open(path)) }
  /** A throwaway workspace in memory. */
  static memory () { return new Workspace(native.Workspace.memory()) }

  get fs () {
    const n = this._native
    return {
      readFile: async (path) => unwrap(await n.readFile(path)).data,
      readText: async (path) => unwrap(await n.readFile(path)).data.toString('utf8'),
      writeFile: async (path, data) => { unwrap(await n.writeFile(path, data)) },
      list: async (path) => unwrap(await n.list(path)).text.split('\n').filter(Boolean)
        .map((line) => { const [name, kind] = line.split('\t'); return { name, kind } }),
      exists: async (path) => unwrap(await n.exists(path)).flag,
      mkdir: async (path) => { unwrap(await n.mkdir(path)) },
      remove: async (path, options = {}) => { unwrap(await n.remove(path, !!options.recursive)) }
    }
  }

  /** Runs `command` (bash source, or an argument list) and collects its output. */
  async exec (command, options = {}) {
    return result(unwrap(await this._native.exec(command, execOptions(options), cancelFor(options.signal))))
  }

  /**
   * Runs `command`, yielding `{ kind: 'stdout' | 'stderr', data }` chunks as they are written,
   * then `{ kind: 'exit', status, result }`. Leaving the loop early stops the command.
   */
  async * execStream (command, options = {}) {
    const run = this._native.start(command, execOptions(options), cancelFor(options.signal))
    let finished = false
    try {
      for (;;) {
        const reply = await run.next()
        if (!reply.kind) return
        if (reply.kind === 'exit') {
          finished = true
          unwrap(reply)
          yield { kind: 'exit', status: reply.status, result: result(reply) }
          return
        }
        yield { kind: reply.kind, data: reply.data }
      }
    } finally {
      if (!finished) run.cancel()
    }
  }

  async snapshot (name) { unwrap(await this._native.snapshot(name)) }
  async restore (name) { unwrap(await this._native.restore(name)) }

  /** A new, independent workspace file at `path` holding snapshot `name`. */
  async fork (name, path) {
    unwrap(await this._native.fork(name, path))
    return Workspace.open(path)
  }

  /** The agent tools over this workspace. */
  tools (options = {}) { return new Tools(this, options.readOnly) }
}

module.exports = { Workspace, Tools }
