import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import type { Command } from 'commander'
import { decodeAudio } from '../audio/decode.js'
import { createPocketsphinxEngine, type PocketsphinxEngine } from '../engines/asr/pocketsphinx/index.js'
import { SpeechError } from '../errors.js'
import { pieceBounds } from '../asr/pieces.js'
import { transcribe, type TranscriptSegment } from '../asr/transcribe.js'
import { ProgressBar } from './progress.js'
import { transcribeRemote } from './transcribe-remote.js'

/** Default piece length (the spec's advice for longer recordings: split, transcribe each, add offsets). */
const PIECE_SEC = 10 * 60

/**
 * `parla transcribe FILE`: any length, locally. The file is cut into pieces of at most 10 minutes, at pauses,
 * each transcribed like one `/v1/asr` request, and each piece's start offset is added to its segments.
 */
export function registerTranscribeCommand(program: Command): void {
  program
    .command('transcribe')
    .description('transcribe an audio file of any length (prints the transcript, or JSON with --json)')
    .argument('<file>')
    .option('--json', 'print {text, duration, segments} as JSON')
    .option('--workers <n>', 'decoder threads (default: CPU cores)')
    .option('--piece-seconds <n>', `longest piece transcribed at once, cut at a pause (default: ${PIECE_SEC})`)
    .option('--server <url>', 'transcribe on a remote Parla instead (default: $PARLA_SERVER); one request, its limits apply')
    .option('--key <key>', 'API key for --server (default: $PARLA_KEY)')
    .option('--language <code>', 'with --server: the spoken language (default: detected)')
    .addHelpText('after', '\nExamples:\n  parla transcribe talk.mp3 --json\n  parla transcribe memo.webm --server http://speech:8080 --key $KEY\n')
    .action(async (file: string, options: { json?: boolean; workers?: string; pieceSeconds?: string; server?: string; key?: string; language?: string }) => {
      if (options.server ?? process.env.PARLA_SERVER) return transcribeRemote(file, options)
      const pieceSeconds = options.pieceSeconds === undefined ? PIECE_SEC : Number(options.pieceSeconds)
      if (!(pieceSeconds >= 5 && pieceSeconds <= 3600)) {
        process.stderr.write('parla: --piece-seconds must be a number of seconds from 5 to 3600\n')
        process.exitCode = 2
        return
      }
      let engine: PocketsphinxEngine | undefined
      try {
        // Hours of compressed audio can take longer to decode than the API's 20 s allowance.
        const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
          throw new SpeechError('bad_request', `cannot read ${file} (${err.code ?? err.message})`)
        })
        const audio = await decodeAudio(new Uint8Array(bytes), { name: basename(file), timeoutMs: 30 * 60_000 })
        // Only now: a file that is not audio fails without loading a decoder per core first.
        engine = createPocketsphinxEngine(options.workers ? { workers: Number(options.workers) } : {})
        const bar = new ProgressBar(process.stderr, audio.durationSec)
        const texts: string[] = []
        const segments: TranscriptSegment[] = []
        for (const { start, end } of pieceBounds(audio.samples, audio.sampleRate, pieceSeconds)) {
          const offset = start / audio.sampleRate
          const piece = audio.samples.subarray(start, end)
          const result = await transcribe(engine, { samples: piece, sampleRate: audio.sampleRate }, {
            language: 'en',
            timestamps: true,
            onProgress: (done) => bar.update(offset + done),
          })
          if (result.text) texts.push(result.text)
          for (const s of result.segments) {
            segments.push({ text: s.text, start: round(s.start + offset), end: round(s.end + offset) })
          }
        }
        bar.done()
        const text = texts.join(' ')
        const json = () => JSON.stringify({ text, duration: round(audio.durationSec), segments }, null, 2)
        process.stdout.write(`${options.json ? json() : text}\n`)
      } catch (err) {
        if (!(err instanceof SpeechError)) throw err
        process.stderr.write(`parla: ${err.issues[0]?.msg ?? err.message}\n`)
        process.exitCode = 1
      } finally {
        await engine?.close()
      }
    })
}

const round = (sec: number) => Math.round(sec * 1000) / 1000
