// Type-checked by tests/all.rs (tsc --strict): a program using the package's types as an
// agent would, so that index.d.ts is held to what index.js gives.
import { Workspace, ComputerError, ExecEvent } from '../index'

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
  console.log(text, status, names, out, copy)
}

void main()
