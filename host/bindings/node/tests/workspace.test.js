'use strict'
// The bindings' shared scenario in Node.js (as in Rust, Python and C), then Node's own parts:
// errors with `code`, streaming as an async iterator, AbortSignal, the AI SDK tool shape.
// Run by tests/all.rs with `node --test`; COMPUTER_NODE_PACKAGE names the package folder.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { Workspace } = require(process.env.COMPUTER_NODE_PACKAGE)

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'computer-node-'))

test('write a file, then exec in the isolate', async () => {
  const ws = Workspace.memory()
  await ws.fs.writeFile('/workspace/notes.md', 'one\ntwo\nthree\n')
  const r = await ws.exec('wc -l < notes.md && grep -c o notes.md', { backend: 'isolate' })
  assert.equal(r.status, 0)
  assert.equal(r.text, '3\n2\n')
  assert.equal(await ws.fs.readText('notes.md'), 'one\ntwo\nthree\n')
})

test('auto falls back to the container', async (t) => {
  if (process.env.COMPUTER_CONTAINERS !== '1') {
    t.skip('no Docker engine, /dev/fuse or root (the harness says why)')
    return
  }
  const ws = Workspace.memory()
  const r = await ws.exec("python3 -c 'print(6*7)'", { timeoutMs: 600000 })
  assert.equal(r.text, '42\n', r.stderr.toString())
})

test('stream output as an async iterator', async () => {
  const ws = Workspace.memory()
  const events = []
  for await (const ev of ws.execStream('echo one; echo two >&2; echo three')) events.push(ev)
  const last = events.pop()
  assert.equal(last.kind, 'exit')
  assert.equal(last.status, 0)
  const out = (kind) => Buffer.concat(events.filter((e) => e.kind === kind).map((e) => e.data)).toString()
  assert.equal(out('stdout'), 'one\nthree\n')
  assert.equal(out('stderr'), 'two\n')
})

test('snapshot and fork', async () => {
  const ws = Workspace.open(path.join(tmp, 'agent.db'))
  await ws.fs.writeFile('state.txt', 'before\n')
  await ws.snapshot('before')
  await ws.fs.writeFile('state.txt', 'after\n')
  const copy = await ws.fork('before', path.join(tmp, 'copy.db'))
  assert.equal(await copy.fs.readText('state.txt'), 'before\n')
  assert.equal(await ws.fs.readText('state.txt'), 'after\n')
  await ws.restore('before')
  assert.equal(await ws.fs.readText('state.txt'), 'before\n')
})

test('tool calls and tool shapes', async () => {
  const ws = Workspace.memory()
  const tools = ws.tools()
  await tools.call('write', { path: 'hello.txt', content: 'hi there\n' })
  assert.match(await tools.call('read', '{"path": "/workspace/hello.txt"}'), /hi there/)
  const openai = tools.openai()
  assert.ok(openai.every((t) => t.type === 'function' && t.function.parameters.type === 'object'))
  const mcp = ws.tools({ readOnly: true }).mcp()
  assert.deepEqual(mcp.map((t) => t.name).sort(), ['find', 'grep', 'ls', 'read'])
  // The AI SDK's tool() shape: description, a JSON schema, execute.
  const sdk = tools.aiSdk()
  assert.equal(typeof sdk.exec.description, 'string')
  assert.equal(sdk.exec.inputSchema.type, 'object')
  assert.match(await sdk.exec.execute({ command: 'echo from-sdk' }), /from-sdk/)
  await assert.rejects(tools.call('read', { path: 'missing.txt' }), { code: 'ENOENT' })
  await assert.rejects(tools.call('read', 'not json'), { code: 'ERR_INVALID_ARG_VALUE' })
})

test('a missing file rejects with ENOENT', async () => {
  const ws = Workspace.memory()
  await assert.rejects(ws.fs.readFile('nope/missing.txt'), (e) => {
    assert.equal(e.code, 'ENOENT')
    assert.match(e.message, /\/workspace\/nope\/missing\.txt/)
    return true
  })
  await ws.fs.mkdir('dir')
  await assert.rejects(ws.fs.readFile('dir'), { code: 'EISDIR' })
})

test('a timeout is named as a limit', async () => {
  const ws = Workspace.memory()
  await assert.rejects(ws.exec('echo started; sleep 30', { timeoutMs: 500 }), (e) => {
    assert.equal(e.code, 'ERR_COMPUTER_LIMIT')
    assert.equal(e.limit, 'timeout')
    assert.equal(e.result.status, 124)
    assert.equal(e.result.text, 'started\n')
    return true
  })
})

test('an AbortSignal stops the command', async () => {
  const ws = Workspace.memory()
  const controller = new AbortController()
  const running = ws.exec('touch started; sleep 20; touch finished', { signal: controller.signal })
  while (!(await ws.fs.exists('started'))) await new Promise((resolve) => setTimeout(resolve, 20))
  controller.abort()
  const r = await running
  assert.equal(r.status, 130)
  assert.equal(r.ended, 'cancelled')
  assert.equal(await ws.fs.exists('finished'), false)
})

test('leaving a stream early stops the command', async () => {
  const ws = Workspace.memory()
  for await (const ev of ws.execStream('echo first; sleep 1; touch finished')) {
    assert.equal(ev.kind, 'stdout')
    break
  }
  await new Promise((resolve) => setTimeout(resolve, 3000)) // had it gone on: `finished` after 1 s
  assert.equal(await ws.fs.exists('finished'), false)
})

test('arguments, input and bad options', async () => {
  const ws = Workspace.memory()
  assert.equal((await ws.exec(['printf', '%s|', 'a b', 'c'])).text, 'a b|c|')
  assert.equal((await ws.exec('tr a-z A-Z', { stdin: 'shout\n' })).text, 'SHOUT\n')
  assert.equal((await ws.exec('echo "$X"', { env: { X: 'from env' } })).text, 'from env\n')
  assert.equal((await ws.exec('exit 3')).status, 3)
  await assert.rejects(ws.exec('true', { backend: 'vm' }), /backend "vm"/)
  await assert.rejects(async () => ws.exec('true', { timeoutMs: -1 }), /timeoutMs/)
})
