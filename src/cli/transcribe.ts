import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import type { Command } from 'commander'
import { decodeAudio } from '../audio/decode.js'
import { createPocketsphinxEngine } from '../engines/asr/pocketsphinx/index.js'
import { SpeechError } from '../errors.js'
import { transcribe, type TranscriptSegment } from '../asr/transcribe.js'
import { ProgressBar } from './progress.js'

/** Pieces as long as one API request may be (the spec's advice for longer recordings: split, add offsets). */
const PIECE_SEC = 10 * 60

/**
 * `parla transcribe FILE`: any length, locally. The file is cut into 10-minute pieces, each transcribed
 * like one `/v1/asr` request, and each piece's start offset is added to its segments.
 */
export function registerTranscribeCommand(program: Command): void {
  program
    .command('transcribe')
    .description('transcribe an audio file of any length (prints the transcript, or JSON with --json)')
    .argument('<file>')
    .option('--json', 'print {text, duration, segments} as JSON')
    .option('--workers <n>', 'decoder threads (default: CPU cores)')
    .action(async (file: string, options: { json?: boolean; workers?: string }) => {
      const engine = createPocketsphinxEngine(options.workers ? { workers: Number(options.workers) } : {})
      try {
        const audio = await decodeAudio(new Uint8Array(await readFile(file)), { name: basename(file) })
        const bar = new ProgressBar(process.stderr, audio.durationSec)
        const pieceLength = PIECE_SEC * audio.sampleRate
        const texts: string[] = []
        const segments: TranscriptSegment[] = []
        for (let start = 0; start < audio.samples.length; start += pieceLength) {
          const offset = start / audio.sampleRate
          const piece = audio.samples.subarray(start, Math.min(audio.samples.length, start + pieceLength))
          const result = await transcribe(engine, { samples: piece, sampleRate: audio.sampleRate }, {
            language: 'en',
            timestamps: true,
            onProgress: (done) => bar.update(offset + done),
          })
          if (result.text) texts.push(result.text)
          for (const s of result.segments) segments.push({ text: s.text, start: round(s.start + offset), end: round(s.end + offset) })
        }
        bar.done()
        const text = texts.join(' ')
        process.stdout.write(options.json ? `${JSON.stringify({ text, duration: round(audio.durationSec), segments }, null, 2)}\n` : `${text}\n`)
      } catch (err) {
        if (!(err instanceof SpeechError)) throw err
        process.stderr.write(`parla: ${err.issues[0]?.msg ?? err.message}\n`)
        process.exitCode = 1
      } finally {
        await engine.close()
      }
    })
}

const round = (sec: number) => Math.round(sec * 1000) / 1000
