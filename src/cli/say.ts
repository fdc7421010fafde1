import { extname } from 'node:path'
import type { Command } from 'commander'
import { AudioOutput } from './audio-output.js'
import type { ParlaClient } from './client.js'
import { sseEvents } from './client.js'
import { addConnectionOptions, withConnection, type ConnectionOptions } from './connection.js'
import { CliError, EXIT, EXIT_HELP } from './exit.js'
import { readStdin } from './stdin.js'

const FORMATS = ['mp3', 'wav', 'pcm', 'opus']
const EXT_FORMAT: Record<string, string> = { '.mp3': 'mp3', '.wav': 'wav', '.pcm': 'pcm', '.raw': 'pcm', '.opus': 'opus', '.ogg': 'opus' }

interface SayOptions extends ConnectionOptions {
  voice?: string
  format?: string
  speed?: string
  model: string
  latency?: string
  normalize: boolean
  sampleRate?: string
  output?: string
  timestamps?: boolean
  json?: boolean
}

const EXAMPLES = `
Examples:
  parla say "Hello there" -o hello.mp3
  parla say "Guten Tag" --voice espeak-ng-de -o tag.wav
  echo "From a pipe" | parla say - --format wav | aplay
  parla say "Word timing" --timestamps --json -o words.mp3
  parla say "Remote" --server http://speech:8080 --key $KEY -o remote.opus
${EXIT_HELP}`

export function registerSayCommand(program: Command): void {
  addConnectionOptions(program
    .command('say')
    .description('speak text (an argument, or - / a pipe for stdin) into an audio file or stdout')
    .argument('[text]', "the text, or '-' to read it from stdin")
    .option('-v, --voice <id>', 'voice model id (see parla voices list); default: by the text\'s language')
    .option('-f, --format <format>', `${FORMATS.join(', ')} (default: from -o's extension, else mp3)`)
    .option('--speed <x>', 'speaking rate, 0.5 to 2')
    .option('--model <name>', 'model header: s2-pro or s1 (expression-tag dialect)', 's2-pro')
    .option('--latency <mode>', 'normal, balanced or low')
    .option('--no-normalize', 'speak numbers and dates as written')
    .option('--sample-rate <hz>', 'output sample rate')
    .option('-o, --output <file>', 'write the audio here (default: stdout, which must not be a terminal)')
    .option('--timestamps', 'print each word with its start and end (seconds) on stdout; audio only with -o')
    .option('--json', 'with --timestamps: print {duration, words} as JSON'))
    .addHelpText('after', EXAMPLES)
    .action((text: string | undefined, options: SayOptions) => withConnection(options, (client) => say(client, text, options)))
}

async function say(client: ParlaClient, text: string | undefined, options: SayOptions): Promise<void> {
  const input = text === undefined || text === '-' ? await readStdin() : text
  if (input.trim() === '') throw new CliError(EXIT.usage, "no text: give it as an argument, or pipe it in with '-'")
  const format = options.format ?? EXT_FORMAT[extname(options.output ?? '').toLowerCase()] ?? 'mp3'
  if (!FORMATS.includes(format)) throw new CliError(EXIT.usage, `--format must be one of ${FORMATS.join(', ')}, got '${format}'`)
  const speed = options.speed === undefined ? undefined : Number(options.speed)
  if (speed !== undefined && !(speed >= 0.5 && speed <= 2)) throw new CliError(EXIT.usage, '--speed must be a number from 0.5 to 2')
  const audioWanted = options.output !== undefined || !options.timestamps
  if (audioWanted && !options.output && process.stdout.isTTY) {
    throw new CliError(EXIT.usage, 'not writing audio to a terminal: use -o FILE, or pipe stdout into a player or file')
  }
  const body = JSON.stringify({
    text: input,
    format,
    normalize: options.normalize,
    ...(options.voice && { reference_id: options.voice }),
    ...(speed !== undefined && { prosody: { speed } }),
    ...(options.latency && { latency: options.latency }),
    ...(options.sampleRate && { sample_rate: Number(options.sampleRate) }),
  })
  const init = { method: 'POST', headers: { 'content-type': 'application/json', model: options.model }, body }
  const output = audioWanted ? new AudioOutput(options.output) : undefined
  try {
    if (options.timestamps) await withTimestamps(client, init, output, options.json === true)
    else {
      const response = await client.request('/v1/tts', init)
      for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) await output!.write(bytes)
    }
    await output?.commit()
  } catch (err) {
    await output?.discard()
    throw err
  }
}

async function withTimestamps(client: ParlaClient, init: RequestInit, output: AudioOutput | undefined, json: boolean): Promise<void> {
  const response = await client.request('/v1/tts/stream/with-timestamp', init)
  // Latest snapshot per text chunk wins; times are relative to the chunk's offset in the whole audio.
  const chunks = new Map<number, { offset: number; words: { text: string; start: number; end: number }[] }>()
  let duration = 0
  for await (const event of sseEvents(response.body!)) {
    if (event.audio_base64 && output) await output.write(Buffer.from(event.audio_base64, 'base64'))
    if (!event.alignment) continue
    chunks.set(event.chunk_seq, { offset: event.chunk_audio_offset_sec, words: event.alignment.segments })
    duration = Math.max(duration, event.chunk_audio_offset_sec + event.alignment.audio_duration)
  }
  const round = (sec: number) => Math.round(sec * 1000) / 1000
  const words = [...chunks.entries()].sort((a, b) => a[0] - b[0])
    .flatMap(([, c]) => c.words.map((w) => ({ text: w.text, start: round(w.start + c.offset), end: round(w.end + c.offset) })))
  if (json) process.stdout.write(`${JSON.stringify({ duration: round(duration), words }, null, 2)}\n`)
  else for (const w of words) process.stdout.write(`${w.start.toFixed(3)}\t${w.end.toFixed(3)}\t${w.text}\n`)
}
