/**
 * The real-speech set (test/fixtures/real-speech): Parla's ASR service on each file uploaded as WAV, MP3 and
 * Opus (ffmpeg encodes them, as a client's tools would), beside `pocketsphinx_continuous` on the WAV files.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { corpusWer } from '../src/asr/wer.js'
import { createAsrService } from '../src/services/asr/service.js'
import { createPocketsphinxEngine, type PocketsphinxEngineOptions } from '../src/engines/asr/pocketsphinx/index.js'

export const REAL_SPEECH_DIR = join(import.meta.dirname, '..', 'test', 'fixtures', 'real-speech')

export interface RealClip { readonly file: string, readonly path: string, readonly text: string }

export function realSpeechClips(): RealClip[] {
  return readFileSync(join(REAL_SPEECH_DIR, 'transcripts.tsv'), 'utf8').trim().split('\n').map((line) => {
    const [file = '', text = ''] = line.split('\t')
    return { file, path: join(REAL_SPEECH_DIR, file), text }
  })
}

const FFMPEG_ARGS = {
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'],
  opus: ['-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'],
} as const

export type UploadFormat = 'wav' | keyof typeof FFMPEG_ARGS

export function encodeAs(path: string, format: UploadFormat): Uint8Array {
  if (format === 'wav') return new Uint8Array(readFileSync(path))
  const args = ['-v', 'error', '-i', path, ...FFMPEG_ARGS[format], 'pipe:1']
  return new Uint8Array(execFileSync('ffmpeg', args, { maxBuffer: 16 * 1024 * 1024 }))
}

export function cliTranscript(path: string): string {
  return execFileSync('pocketsphinx_continuous', ['-infile', path, '-logfn', '/dev/null'], { encoding: 'utf8' })
}

export interface RealSpeechRow { readonly file: string, readonly reference: string, readonly cli: string, readonly parla: Record<UploadFormat, string> }

/** Transcribes every clip with the CLI and with Parla in each upload format; WERs are over the whole set. */
export async function runRealSpeech(engine: PocketsphinxEngineOptions = {}, formats: readonly UploadFormat[] = ['wav', 'mp3', 'opus']) {
  const service = createAsrService({ workers: 1, engine: () => createPocketsphinxEngine({ workers: 1, ...engine }) })
  const rows: RealSpeechRow[] = []
  try {
    for (const clip of realSpeechClips()) {
      const parla = {} as Record<UploadFormat, string>
      for (const format of formats) {
        const audio = encodeAs(clip.path, format)
        parla[format] = (await service.transcribe({ audio, filename: `${clip.file}.${format}` })).text
      }
      rows.push({ file: clip.file, reference: clip.text, cli: cliTranscript(clip.path), parla })
    }
  } finally {
    await service.close()
  }
  const werOf = (pick: (r: RealSpeechRow) => string) =>
    corpusWer(rows.map((r) => ({ reference: r.reference, hypothesis: pick(r) }))).wer
  const parlaWer = Object.fromEntries(formats.map((f) => [f, werOf((r) => r.parla[f])])) as Record<UploadFormat, number>
  return { rows, cliWer: werOf((r) => r.cli), parlaWer }
}
