import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { execFile, spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseWav, toWav } from './support/asr-speech.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { SENTENCES, ttsAll, withPauses } from './helpers/asr-audio.js'
import { parla } from './helpers/cli.js'
import { shiftedReference } from './helpers/clone.js'

/**
 * A net against hangs, not a speed limit: each run starts Node and tsx (about 4 s of CPU), and the voice test runs
 * ten of them plus training, which took over 120 s at load 10 on two cores.
 */
const SLOW = 300_000

let server: TestServer
let dir: string
let remote: string[]

beforeAll(async () => {
  server = await startTestServer()
  remote = ['--server', await server.listen(), '--key', server.alice]
  dir = await mkdtemp(join(tmpdir(), 'parla-cli-api-'))
}, SLOW)

afterAll(async () => {
  await server?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('parla say', { timeout: SLOW }, () => {
  it('writes a WAV file named by -o, with the format from its extension', async () => {
    const out = join(dir, 'hello.wav')
    const run = await parla(['say', 'Hello from the command line.', '-o', out, ...remote])
    expect(run.code, run.stderr).toBe(0)
    const wav = parseWav(new Uint8Array(await readFile(out)))
    expect(wav.samples.length / wav.sampleRate).toBeGreaterThan(0.8)
    expect(Math.max(...wav.samples.subarray(0, 20_000).map(Math.abs))).toBeGreaterThan(0.05)
  })

  it("reads the text from stdin with '-' and writes raw audio to stdout for a pipe", async () => {
    const run = await parla(['say', '-', '--format', 'pcm', '--sample-rate', '16000', ...remote], { input: 'Piped text.' })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout.length % 2).toBe(0)
    expect(run.stdout.length / 2 / 16_000).toBeGreaterThan(0.4)
  })

  it('--timestamps --json prints every word with its times, in order', async () => {
    const run = await parla(['say', 'One two three four.', '--timestamps', '--json', ...remote])
    expect(run.code, run.stderr).toBe(0)
    const result = JSON.parse(run.stdout.toString()) as { duration: number; words: { text: string; start: number; end: number }[] }
    expect(result.words.map((w) => w.text)).toEqual(['One', 'two', 'three', 'four'])
    result.words.forEach((w, i) => {
      expect(w.end).toBeGreaterThan(w.start)
      if (i > 0) expect(w.start).toBeGreaterThanOrEqual(result.words[i - 1]!.end - 0.01)
    })
    expect(result.duration).toBeGreaterThanOrEqual(result.words.at(-1)!.end)
  })

  it('a reader that has gone (| head) ends it quietly: exit 0, no stack trace', async () => {
    const bin = fileURLToPath(new URL('../bin/parla.js', import.meta.url))
    for (const args of [['voices', 'list'], ['say', 'Spoken to a closed pipe.', '--format', 'pcm']]) {
      const child = spawn(process.execPath, [bin, ...args, ...remote], { env: { ...process.env, PARLA_SERVER: '', PARLA_KEY: '' } })
      // The read end closes before the command writes anything, so its first write meets EPIPE.
      child.stdout.destroy()
      let stderr = ''
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: '' })
    }
  })

  it('failures exit with their code and a message, and leave no file behind', async () => {
    const out = join(dir, 'nothing.mp3')
    const missing = await parla(['say', 'Hi.', '--voice', 'no-such-voice', '-o', out, ...remote])
    expect(missing.code).toBe(4)
    expect(missing.stderr).toMatch(/no-such-voice/)
    expect((await readdir(dir)).filter((f) => f.startsWith('nothing'))).toEqual([])
    const badKey = await parla(['say', 'Hi.', '-o', out, '--server', server.url, '--key', 'wrong'])
    expect(badKey.code).toBe(3)
    expect(badKey.stderr).toContain('Invalid API key')
    const empty = await parla(['say', '   ', '-o', out, ...remote])
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('no text')
    const speed = await parla(['say', 'Hi.', '--speed', '5', '-o', out, ...remote])
    expect(speed.code).toBe(2)
    // The API's 422 list, read as one line with the message (the field it names is in it).
    const nothing = await parla(['say', '...!?', '-o', out, ...remote])
    expect(nothing.code).toBe(2)
    expect(nothing.stderr).toMatch(/^parla: text has nothing to speak: .+ \[HTTP 422\]$/m)
    const down = await parla(['say', 'Hi.', '-o', out, '--server', 'http://127.0.0.1:9', '--key', 'k'])
    expect(down.code).toBe(5)
    expect(down.stderr).toContain('cannot reach')
  })

  it('refuses to write audio to a terminal and says what to do instead', async () => {
    // util-linux `script` (essential on Debian) gives the command a terminal as stdout.
    const bin = fileURLToPath(new URL('../bin/parla.js', import.meta.url))
    const command = `${process.execPath} ${bin} say Hello --server ${server.url} --key ${server.alice}; echo "exit=$?"`
    const run = await new Promise<string>((resolve) => {
      execFile('script', ['-qec', command, '/dev/null'], { env: { ...process.env, PARLA_SERVER: '', PARLA_KEY: '' } }, (_err, stdout) => resolve(stdout))
    })
    expect(run).toContain('not writing audio to a terminal: use -o FILE')
    expect(run).toContain('exit=2')
  })

  it('--help shows examples and the exit codes', async () => {
    const run = await parla(['say', '--help'])
    expect(run.code).toBe(0)
    expect(run.stdout.toString()).toContain('Examples:')
    expect(run.stdout.toString()).toContain('Exit codes:')
  })
})

describe('parla voices and transcribe against a server', { timeout: SLOW }, () => {
  it('create waits for training and reports quality; list, show, update and rm work on it', async () => {
    const ref = await shiftedReference(3, 0.95)
    const file = join(dir, 'ref.wav')
    await writeFile(file, ref.wav)
    const created = await parla(['voices', 'create', file, '--title', 'CLI voice', '--texts', ref.text, '--tags', 'cli', '--json', ...remote])
    expect(created.code, created.stderr).toBe(0)
    const model = JSON.parse(created.stdout.toString())
    expect(model).toMatchObject({ title: 'CLI voice', state: 'trained', tags: ['cli'] })
    expect(model.quality.audios[0]).toMatchObject({ filename: 'ref.wav', quality_passed: true })
    // Not a terminal: progress comes as plain lines, the last one the final state.
    expect(created.stderr.trim().split('\n').at(-1)).toBe(`${model._id}: trained`)

    const listed = await parla(['voices', 'list', '--self', '--json', ...remote])
    expect(JSON.parse(listed.stdout.toString()).map((m: { _id: string }) => m._id)).toEqual([model._id])
    const table = await parla(['voices', 'list', '--self', ...remote])
    expect(table.stdout.toString()).toMatch(new RegExp(`^${model._id}\\tCLI voice\\ttrained\\tprivate\\tcli$`, 'm'))

    const spoken = join(dir, 'cloned.wav')
    const say = await parla(['say', 'In the new voice.', '--voice', model._id, '-o', spoken, ...remote])
    expect(say.code, say.stderr).toBe(0)
    expect(parseWav(new Uint8Array(await readFile(spoken))).samples.length).toBeGreaterThan(10_000)

    const updated = await parla(['voices', 'update', model._id, '--title', 'Renamed', '--visibility', 'unlist', '--json', ...remote])
    expect(updated.code, updated.stderr).toBe(0)
    expect(JSON.parse(updated.stdout.toString())).toMatchObject({ title: 'Renamed', visibility: 'unlist' })
    const shown = await parla(['voices', 'show', model._id, ...remote])
    expect(shown.stdout.toString()).toContain('Renamed')
    expect(shown.stdout.toString()).toMatch(/quality: +ref\.wav .* passed/)

    const bobCannot = await parla(['voices', 'rm', model._id, '--server', server.url, '--key', server.bob])
    expect(bobCannot.code).toBeGreaterThanOrEqual(3)
    const removed = await parla(['voices', 'rm', model._id, ...remote])
    expect(removed.code, removed.stderr).toBe(0)
    const gone = await parla(['voices', 'show', model._id, ...remote])
    expect(gone.code).toBe(4)
  })

  it('create with a file that is not audio fails with the reason and exit code 2', async () => {
    const file = join(dir, 'notes.txt')
    await writeFile(file, 'not audio at all')
    const run = await parla(['voices', 'create', file, '--title', 'Bad', ...remote])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/audio/)
  })

  it('transcribe --server sends the file to the remote Parla', async () => {
    const texts = [SENTENCES[3]!, SENTENCES[10]!]
    const speech = withPauses(await ttsAll(server, texts), texts)
    const file = join(dir, 'speech.wav')
    await writeFile(file, toWav(speech.samples, speech.sampleRate))
    const run = await parla(['transcribe', file, '--json', ...remote])
    expect(run.code, run.stderr).toBe(0)
    const result = JSON.parse(run.stdout.toString())
    expect(result.text.toLowerCase()).toContain('forgot his keys')
    expect(result.segments.length).toBeGreaterThanOrEqual(2)
  })
})

describe('the local data directory', { timeout: SLOW }, () => {
  it('without --server, say works on the local data dir with a key made there', async () => {
    const data = join(dir, 'data')
    const key = await parla(['keys', 'create', '--name', 'me', '--data-dir', data])
    expect(key.code, key.stderr).toBe(0)
    const out = join(dir, 'local.wav')
    const run = await parla(['say', 'Spoken locally.', '-o', out, '--data-dir', data], { env: { PARLA_KEY: key.stdout.toString().trim() } })
    expect(run.code, run.stderr).toBe(0)
    expect(parseWav(new Uint8Array(await readFile(out))).samples.length).toBeGreaterThan(10_000)
    const noKey = await parla(['voices', 'list', '--data-dir', data])
    expect(noKey.code).toBe(2)
    expect(noKey.stderr).toContain('no API key')
  })
})

describe('parla serve: start-up failures', { timeout: SLOW }, () => {
  const oneLine = (stderr: string) => stderr.trim().split('\n').filter((l) => l.startsWith('parla: '))

  it('a port in use is one line naming the address and the setting, exit 1, no stack trace', async () => {
    const port = new URL(remote[1]!).port
    const run = await parla(['serve', '--host', '127.0.0.1', '--port', port, '--data-dir', join(dir, 'busy-port')])
    expect(run.code).toBe(1)
    expect(oneLine(run.stderr)).toEqual([`parla: cannot start: 127.0.0.1:${port} is already in use by another program; stop it, or choose another port with --port (PARLA_PORT)`])
    expect(run.stderr).not.toMatch(/^\s+at /m)
  })

  it('an unsupported databaseUrl names the setting and the schemes it takes', async () => {
    const run = await parla(['serve', '--database-url', 'mysql://db/parla', '--data-dir', join(dir, 'bad-db')])
    expect(run.code).toBe(1)
    expect(oneLine(run.stderr)).toEqual(['parla: cannot start: databaseUrl: unsupported scheme "mysql:"; supported: postgres, postgresql, sqlite'])
    expect(run.stderr).not.toMatch(/^\s+at /m)
  })
})
