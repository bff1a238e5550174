// Type-checked by tests/all.rs (tsc --strict): a program using the package's types as an
// agent would, so that index.d.ts is held to what index.js gives.
import { Workspace, ComputerError, ExecEvent, Job, BucketStats } from '../index'

async function main (): Promise<void> {
  const ws = Workspace.memory()
  await ws.fs.writeFile('notes.md', 'hi\n')
  const text: string = await ws.fs.readText('notes.md')
  const r = await ws.exec(['wc', '-l', 'notes.md'], { cwd: '/workspace', timeoutMs: 1000, signal: new AbortController().signal })
  const status: number = r.status
  for await (const ev of ws.execStream('echo hi')) {
    const e: ExecEvent = ev
    if (e.kind === 'exit') console.log(e.result.text)
    else console.log(e.data.byteLength)
  }
  const tools = ws.tools({ readOnly: true })
  const names: string[] = tools.openai().map((t) => t.function.name)
  const out: string = await tools.aiSdk().read.execute({ path: 'notes.md' })
  try {
    await ws.fs.readFile('missing')
  } catch (err) {
    const e = err as ComputerError
    console.log(e.code, e.limit)
  }
  const copy: Workspace = await ws.fork('snap', '/tmp/copy.db')
  const quick: string = ws.fs.readTextSync('notes.md') + ws.execSync('true').text
  const session = ws.session()
  const kept: number = (await session.exec('X=1')).status + session.execSync('echo $X').status
  const job: Job = ws.spawn(['sleep', '1'], { timeoutMs: 5000 })
  const ended: number | undefined = await job.wait(100)
  const running: boolean = ws.jobs().some((j) => j.running)
  const cloned: void = await ws.git.clone('git://127.0.0.1:9418/repo.git', 'repo')
  const policy: string = ws.net.allow('git://127.0.0.1:9418', ['GET'])
  const stats: BucketStats = await ws.exportBucket('out', 's3://b/p', { endpoint: 'http://127.0.0.1:9000', allowHttp: true, delete: true })
  const pushed: number = (await ws.pushSnapshot('v1', 's3://b/snaps')).chunksUploaded
  const pulled: Workspace = await Workspace.pullSnapshot('v1', 's3://b/snaps', '/tmp/pulled.db', { region: 'us-east-1' })
  console.log(text, status, names, out, copy, quick, kept, ended, running, cloned, policy, stats.skipped.length, pushed, pulled)
}

void main()
