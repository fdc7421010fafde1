import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import type { Command } from 'commander'
import { decodeAudio } from '../audio/decode.js'
import { ConfigSchema } from '../config/schema.js'
import { asrEngineFromSettings } from '../engines/asr/neural/from-config.js'
import { createPocketsphinxEngine } from '../engines/asr/pocketsphinx/index.js'
import type { AsrEngine } from '../engines/asr/types.js'
import { neuralSettingsFrom } from '../engines/tts/neural/settings.js'
import { SpeechError } from '../errors.js'
import { pieceBounds } from '../asr/pieces.js'
import { transcribe, type TranscriptSegment } from '../asr/transcribe.js'
import { addConfigFlags } from './config-flags.js'
import { configFromOptions } from './context.js'
import { ProgressBar } from './progress.js'
import { transcribeRemote } from './transcribe-remote.js'

/** Default piece length (the spec's advice for longer recordings: split, transcribe each, add offsets). */
const PIECE_SEC = 10 * 60

/**
 * `parla transcribe FILE`: any length, locally. The file is cut into pieces of at most 10 minutes, at pauses,
 * each transcribed like one `/v1/asr` request, and each piece's start offset is added to its segments. The
 * engine is the configured `asrEngine` (config file, environment, or `--asr-engine`), as the server would use.
 */
export function registerTranscribeCommand(program: Command): void {
  addConfigFlags(program.command('transcribe'))
    .description('transcribe an audio file of any length (prints the transcript, or JSON with --json)')
    .argument('<file>')
    .option('--json', 'print {text, duration, segments} as JSON')
    .option('--workers <n>', 'pocketsphinx decoder threads (default: the asrWorkers setting, else CPU cores)')
    .option('--piece-seconds <n>', `longest piece transcribed at once, cut at a pause (default: ${PIECE_SEC})`)
    .option('--server <url>', 'transcribe on a remote Parla instead (default: $PARLA_SERVER); one request, its limits apply')
    .option('--key <key>', 'API key for --server (default: $PARLA_KEY)')
    .option('--language <code>', 'the spoken language (default: detected where the engine can, else its first language)')
    .addHelpText('after', '\nExamples:\n  parla transcribe talk.mp3 --json\n  parla transcribe memo.webm --server http://speech:8080 --key $KEY\n')
    .action(async (file: string, options: { json?: boolean; workers?: string; pieceSeconds?: string; server?: string; key?: string; language?: string } & Record<string, unknown>) => {
      if (options.server ?? process.env.PARLA_SERVER) return transcribeRemote(file, options)
      const pieceSeconds = options.pieceSeconds === undefined ? PIECE_SEC : Number(options.pieceSeconds)
      if (!(pieceSeconds >= 5 && pieceSeconds <= 3600)) {
        process.stderr.write('parla: --piece-seconds must be a number of seconds from 5 to 3600\n')
        process.exitCode = 2
        return
      }
      // Only settings reach the config; the command's own options (--json, --language, …) are not settings.
      const config = configFromOptions(Object.fromEntries(Object.entries(options).filter(([k]) => k === 'config' || k in ConfigSchema.properties)))
      let engine: AsrEngine | undefined
      try {
        // Hours of compressed audio can take longer to decode than the API's 20 s allowance.
        const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
          throw new SpeechError('bad_request', `cannot read ${file} (${err.code ?? err.message})`)
        })
        const audio = await decodeAudio(new Uint8Array(bytes), { name: basename(file), timeoutMs: 30 * 60_000 })
        // Only now: a file that is not audio fails without loading a decoder per core first.
        const workers = options.workers ? Number(options.workers) : config.asrWorkers
        engine = await asrEngineFromSettings(config.asrEngine, neuralSettingsFrom(config, config.dataDir), workers)
          .catch((err: Error) => { throw new SpeechError('bad_request', err.message) })
          ?? createPocketsphinxEngine(workers > 0 ? { workers } : {})
        const bar = new ProgressBar(process.stderr, audio.durationSec)
        const texts: string[] = []
        const segments: TranscriptSegment[] = []
        let language: string | undefined
        for (const { start, end } of pieceBounds(audio.samples, audio.sampleRate, pieceSeconds)) {
          const offset = start / audio.sampleRate
          const piece = audio.samples.subarray(start, end)
          const result = await transcribe(engine, { samples: piece, sampleRate: audio.sampleRate }, {
            language: options.language ?? 'auto',
            timestamps: true,
            onProgress: (done) => bar.update(offset + done),
          })
          if (result.text) texts.push(result.text)
          language ??= result.language
          for (const s of result.segments) {
            segments.push({ text: s.text, start: round(s.start + offset), end: round(s.end + offset) })
          }
        }
        bar.done()
        const text = texts.join(' ')
        const json = () => JSON.stringify({ text, duration: round(audio.durationSec), ...(language && { language }), segments }, null, 2)
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
