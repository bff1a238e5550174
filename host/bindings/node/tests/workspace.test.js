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

test('the Sync variants run on this thread and throw the same errors', () => {
  const ws = Workspace.memory()
  ws.fs.mkdirSync('dir')
  ws.fs.writeFileSync('dir/a.txt', 'alpha\n')
  assert.equal(ws.fs.readTextSync('dir/a.txt'), 'alpha\n')
  assert.deepEqual(ws.fs.listSync('dir'), [{ name: 'a.txt', kind: 'file' }])
  assert.equal(ws.fs.existsSync('dir/a.txt'), true)
  const r = ws.execSync('cat dir/a.txt; echo "$X" >&2', { env: { X: 'err' } })
  assert.deepEqual([r.status, r.text, Buffer.from(r.stderr).toString()], [0, 'alpha\n', 'err\n'])
  assert.throws(() => ws.fs.readFileSync('missing'), { code: 'ENOENT' })
  assert.throws(() => ws.execSync('sleep 5', { timeoutMs: 200 }), { code: 'ERR_COMPUTER_LIMIT', limit: 'timeout' })
  ws.fs.removeSync('dir', { recursive: true })
  assert.equal(ws.fs.existsSync('dir'), false)
})

test('a session keeps the shell state; sessions are apart', async () => {
  const ws = Workspace.memory()
  const s = ws.session()
  await s.exec('X=kept; cd /tmp; f() { echo "in f $1"; }')
  assert.equal((await s.exec('echo "$X $PWD"; f 1')).text, 'kept /tmp\nin f 1\n')
  assert.equal(s.execSync('echo $X').text, 'kept\n')
  const chunks = []
  for await (const ev of s.execStream('echo streamed $X')) if (ev.kind === 'stdout') chunks.push(Buffer.from(ev.data))
  assert.equal(Buffer.concat(chunks).toString(), 'streamed kept\n')
  assert.equal((await ws.session().exec('echo "[$X]"')).text, '[]\n')
})

test('jobs run in the background, up to the named limit', async () => {
  const ws = Workspace.memory()
  const job = ws.spawn('echo out; echo err >&2; exit 3')
  assert.equal(await job.wait(60000), 3)
  assert.equal(job.status, 3)
  const logs = job.read()
  assert.deepEqual([Buffer.from(logs.stdout).toString(), Buffer.from(logs.stderr).toString()], ['out\n', 'err\n'])
  const sleepers = []
  for (let i = 0; i < 16; i++) sleepers.push(ws.spawn('sleep 60'))
  assert.equal(sleepers[0].running, true)
  assert.equal(await sleepers[0].wait(50), undefined)
  assert.throws(() => ws.spawn('true'), { code: 'ERR_COMPUTER_LIMIT', limit: 'jobs' })
  for (const s of sleepers) s.kill()
  for (const s of sleepers) assert.equal(await s.wait(), 130)
  assert.deepEqual(ws.jobs().map((j) => j.id), [job.id, ...sleepers.map((s) => s.id)])
  await assert.rejects(async () => sleepers[0].wait(NaN), /NaN/)
})

/** Outside CI, skips saying why; in CI the test fails instead. */
function need (t, ok, why) {
  if (ok) return true
  if (process.env.CI) assert.fail(`CI needs this: ${why}`)
  t.skip(why)
  return false
}

function freePort () {
  return new Promise((resolve) => {
    const server = require('node:net').createServer()
    server.listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)) })
  })
}

async function waitForPort (port) {
  for (let i = 0; i < 200; i++) {
    const open = await new Promise((resolve) => {
      const socket = require('node:net').connect(port, '127.0.0.1', () => { socket.end(); resolve(true) })
      socket.on('error', () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`)
}

const { spawnSync, spawn } = require('node:child_process')
const have = (program, ...args) => spawnSync(program, args).status === 0

test('git clones from a real daemon once the policy allows it', async (t) => {
  if (!need(t, have('git', '--version'), 'no git on this machine')) return
  const dir = fs.mkdtempSync(path.join(tmp, 'git-'))
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' }
  const git = (...args) => assert.equal(spawnSync('git', args, { env }).status, 0, args.join(' '))
  git('init', '-q', '-b', 'main', path.join(dir, 'work'))
  fs.writeFileSync(path.join(dir, 'work', 'README.md'), '# served\n')
  git('-C', path.join(dir, 'work'), 'add', '.')
  git('-C', path.join(dir, 'work'), 'commit', '-qm', 'first')
  git('clone', '-q', '--bare', path.join(dir, 'work'), path.join(dir, 'served', 'repo.git'))
  const port = await freePort()
  const execPath = spawnSync('git', ['--exec-path']).stdout.toString().trim()
  const daemon = spawn(path.join(execPath, 'git-daemon'), ['--reuseaddr', '--export-all', '--listen=127.0.0.1', `--port=${port}`, `--base-path=${path.join(dir, 'served')}`, path.join(dir, 'served')], { stdio: 'ignore' })
  try {
    await waitForPort(port)
    const ws = Workspace.memory()
    const url = `git://127.0.0.1:${port}/repo.git`
    await assert.rejects(ws.git.clone(url, '/workspace/repo'), /policy|not allowed|refused/)
    assert.match(ws.net.allow(`git://127.0.0.1:${port}`), /allow/)
    await ws.git.clone(url, '/workspace/repo')
    assert.equal(await ws.fs.readText('repo/README.md'), '# served\n')
    assert.equal((await ws.git.run(['log', '--format=%s'], { cwd: '/workspace/repo' })).text, 'first\n')
    assert.equal(ws.net.deny('all'), '')
    assert.equal(ws.net.policy(), '')
    assert.throws(() => ws.net.allow('not a rule at all'), { code: 'ERR_INVALID_ARG_VALUE' })
  } finally {
    daemon.kill()
  }
})

test('buckets: export to and import from a real S3 server', async (t) => {
  if (!need(t, have('moto_server', '--help'), "moto_server is not installed (python3 -m pip install 'moto[server]')")) return
  const port = await freePort()
  const moto = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' })
  try {
    await waitForPort(port)
    const endpoint = `http://127.0.0.1:${port}`
    assert.equal((await fetch(`${endpoint}/node-data`, { method: 'PUT' })).ok, true)
    const store = { endpoint, region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test', allowHttp: true }
    const ws = Workspace.memory()
    await ws.fs.mkdir('out/sub')
    await ws.fs.writeFile('out/a.txt', 'alpha\n')
    await ws.fs.writeFile('out/sub/b.txt', 'beta\n')
    const sent = await ws.exportBucket('out', 's3://node-data/run1', store)
    assert.deepEqual([sent.transferred, sent.bytes, sent.unchanged], [2, 11, 0])
    assert.equal((await ws.exportBucket('out', 's3://node-data/run1', store)).unchanged, 2)
    const copy = Workspace.memory()
    assert.equal((await copy.importBucket('s3://node-data/run1', 'in', store)).transferred, 2)
    assert.equal(await copy.fs.readText('in/sub/b.txt'), 'beta\n')
    await ws.fs.remove('out/a.txt')
    assert.equal((await ws.exportBucket('out', 's3://node-data/run1', { ...store, delete: true })).deleted, 1)
    await assert.rejects(ws.importBucket('http://node-data/x', 'in', store), { code: 'ERR_INVALID_ARG_VALUE' })
    await assert.rejects(ws.importBucket('s3://no-such-bucket/x', 'in2', store), { code: 'ERR_COMPUTER' })
    assert.equal(await ws.fs.exists('in2'), false)
    // Snapshots: pushed as chunks, pulled into a new workspace file.
    const pushed = await ws.pushSnapshot('v1', 's3://node-data/snaps', store)
    assert.ok(pushed.chunksUploaded >= 1, JSON.stringify(pushed))
    assert.equal((await ws.pushSnapshot('v1', 's3://node-data/snaps', store)).chunksUploaded, 0)
    const pulled = await Workspace.pullSnapshot('v1', 's3://node-data/snaps', path.join(tmp, 'pulled.db'), store)
    assert.equal(await pulled.fs.readText('out/sub/b.txt'), 'beta\n')
  } finally {
    moto.kill()
  }
})

test('waiting for jobs does not hold the pool: other calls go on', { timeout: 60000 }, async () => {
  const ws = Workspace.memory()
  // More waits than libuv has pool threads (4), for jobs that end only once an exec has run:
  // were each wait to hold a pool thread until its job ended, the exec would never run.
  const jobs = []
  for (let i = 0; i < 6; i++) jobs.push(ws.spawn('until [ -e go ]; do sleep 0.05; done'))
  const waits = jobs.map((j) => j.wait())
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal((await ws.exec('touch go && echo went')).text, 'went\n')
  assert.deepEqual(await Promise.all(waits), [0, 0, 0, 0, 0, 0])
})
