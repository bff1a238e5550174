'use strict'
// The `computer` package for Node.js: the workspace in process. The addon (computer.node,
// built by cargo from this folder's crate) does the work off the JavaScript thread, or on
// it for the `...Sync` methods (as Node's own fs does); this file gives the API its shape:
// Promises that reject with an Error carrying `code` ('ENOENT'...) and `limit`, an async
// iterator for streaming, AbortSignal support, and the tools in the shapes the AI SDK and
// MCP take.

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

/** Entries of a listing reply (`NAME\tKIND` lines). */
function entries (reply) {
  return reply.text.split('\n').filter(Boolean)
    .map((line) => { const [name, kind] = line.split('\t'); return { name, kind } })
}

/** Reads a stream of `run` (a native Run) as events; leaving early stops the command. */
async function * events (run) {
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

/** `exec`, `execSync` and `execStream` of a workspace or a session (`native`). */
class Shell {
  constructor (native) { this._shell = native }

  /** Runs `command` (bash source, or an argument list) and collects its output. */
  async exec (command, options = {}) {
    return result(unwrap(await this._shell.exec(command, execOptions(options), cancelFor(options.signal))))
  }

  /** As `exec`, on this thread: no Promise, and the event loop waits until it ends. */
  execSync (command, options = {}) {
    return result(unwrap(this._shell.exec(command, execOptions(options), undefined, true)))
  }

  /**
   * Runs `command`, yielding `{ kind: 'stdout' | 'stderr', data }` chunks as they are written,
   * then `{ kind: 'exit', status, result }`. Leaving the loop early stops the command.
   */
  execStream (command, options = {}) {
    return events(this._shell.start(command, execOptions(options), cancelFor(options.signal)))
  }
}

/** A shell whose variables, functions and working directory last from one exec to the next. */
class Session extends Shell {}

/** A command running in the background. */
class Job {
  constructor (native) { this._job = native }
  get id () { return this._job.id }
  get command () { return this._job.command }
  /** Its exit status once ended, else `undefined`; throws if it could not run. */
  get status () { return unwrap(this._job.state()).status ?? undefined }
  get running () { const r = this._job.state(); return r.ok && r.status == null }
  /** Output written since the last `read`. */
  read () { const r = this._job.read(); return { stdout: r.stdout, stderr: r.stderr } }
  /**
   * Waits for it to end (at most `timeoutMs`): its status, or `undefined` if it still runs.
   * Waits in slices of at most 100 ms, so a long wait does not keep a pool thread.
   */
  async wait (timeoutMs = Infinity) {
    if (Number.isNaN(timeoutMs)) throw new TypeError('timeoutMs NaN: a number of milliseconds')
    const end = Date.now() + Math.max(0, timeoutMs)
    for (;;) {
      const slice = Math.min(100, Math.max(0, end - Date.now()))
      const status = unwrap(await this._job.wait(slice)).status
      if (status != null) return status
      if (Date.now() >= end) return undefined
    }
  }
  /** Ends it (status 130). */
  kill () { this._job.kill() }
}

class Workspace extends Shell {
  constructor (handle) {
    super(handle)
    this._native = handle
  }

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
      list: async (path) => entries(unwrap(await n.list(path))),
      exists: async (path) => unwrap(await n.exists(path)).flag,
      mkdir: async (path) => { unwrap(await n.mkdir(path)) },
      remove: async (path, options = {}) => { unwrap(await n.remove(path, !!options.recursive)) },
      readFileSync: (path) => unwrap(n.readFile(path, true)).data,
      readTextSync: (path) => unwrap(n.readFile(path, true)).data.toString('utf8'),
      writeFileSync: (path, data) => { unwrap(n.writeFile(path, data, true)) },
      listSync: (path) => entries(unwrap(n.list(path, true))),
      existsSync: (path) => unwrap(n.exists(path, true)).flag,
      mkdirSync: (path) => { unwrap(n.mkdir(path, true)) },
      removeSync: (path, options = {}) => { unwrap(n.remove(path, !!options.recursive, true)) }
    }
  }

  /** A session: execs that keep the shell's state between them. */
  session () { return new Session(this._native.session()) }

  /** Starts `command` in the background. */
  spawn (command, options = {}) {
    const job = this._native.spawn(command, execOptions(options))
    return new Job(job instanceof native.Job ? job : unwrap(job))
  }

  /** The workspace's jobs, running and recently ended, oldest first. */
  jobs () { return this._native.jobs().map((j) => new Job(j)) }

  /** Git on the workspace's repositories; remotes meet the network policy. */
  get git () {
    const n = this._native
    const gitResult = (r) => ({ status: r.status, stdout: r.stdout, stderr: r.stderr, get text () { return r.stdout.toString('utf8') } })
    return {
      run: async (args, options = {}) => gitResult(unwrap(await n.gitRun(args, options.cwd, options.env))),
      clone: async (url, dest) => {
        const r = unwrap(await n.gitRun(['clone', url, dest]))
        if (r.status !== 0) {
          const error = new Error(r.stderr.toString('utf8').trim())
          error.code = 'ERR_COMPUTER'
          throw error
        }
      }
    }
  }

  /** The network policy the workspace's guests meet (nothing reachable by default). */
  get net () {
    const n = this._native
    return {
      allow: (rule, methods) => unwrap(n.netAllow(rule, methods)).text,
      deny: (rule, methods) => unwrap(n.netDeny(rule, methods)).text,
      policy: () => unwrap(n.netPolicy()).text
    }
  }

  /** Copies the objects under `url` (`s3://bucket/prefix`) into the folder `dest`. */
  async importBucket (url, dest = '/workspace', options = {}) {
    return JSON.parse(unwrap(await this._native.importBucket(url, dest, storeOptions(options))).text)
  }

  /** Copies the folder `src` to `url`, uploading only what changed (`delete`: a sync). */
  async exportBucket (src, url, options = {}) {
    return JSON.parse(unwrap(await this._native.exportBucket(src, url, !!options.delete, storeOptions(options))).text)
  }

  /** Uploads snapshot `name` (taken now if there is none) to `url`, only the chunks the bucket lacks. */
  async pushSnapshot (name, url, options = {}) {
    return JSON.parse(unwrap(await this._native.pushSnapshot(name, url, storeOptions(options))).text)
  }

  /** A new workspace file at `path` rebuilt from snapshot `name` in `url`. */
  static async pullSnapshot (name, url, path, options = {}) {
    unwrap(await native.Workspace.pullSnapshot(name, url, path, storeOptions(options)))
    return Workspace.open(path)
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

function storeOptions (options) {
  const { endpoint, region, accessKeyId, secretAccessKey, allowHttp } = options
  return { endpoint, region, accessKeyId, secretAccessKey, allowHttp }
}

module.exports = { Workspace, Session, Job, Tools }
