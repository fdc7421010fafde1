import type { FliteInstance } from './flite-instance.js'
import type { FliteJob, FliteReply } from './protocol.js'

type Piece = Omit<Extract<FliteReply, { type: 'result' }>, 'type' | 'id'>

/**
 * Words and phones come from the kal voice: its front end is the same as the other voices' (cmulex) and the
 * cheapest to run. flite synthesizes audio even for `-o none`; at 1 % of the normal durations there is almost
 * none to make, and the printed words and phones are the same (2–5× faster runs, measured).
 */
const FRONT_END = ['-voice', 'kal', '--setf', 'duration_stretch=0.01']

/** One piece of text: its words (`-pw`), their phones in isolation (`-ps`), then the audio with phone times. */
export function synthesizePiece(flite: FliteInstance, job: Omit<FliteJob, 'type' | 'id'>): Piece {
  const padded = ` ${job.text} `
  const wordsOut = flite.run([...FRONT_END, '-pw', '-t', padded, '-o', 'none']).stdout
  // Punctuation-only "words" (a lone `.`) have no phones; keep only real words.
  const words = wordsOut.trim().split(/\s+/).filter((w) => /[a-z0-9]/i.test(w))
  const isolated = ` ${words.join(', ')} `
  const groups = words.length ? flite.run([...FRONT_END, '-ps', '-t', isolated, '-o', 'none']).stdout : ''
  const settings = ['--setf', `duration_stretch=${job.durationStretch.toFixed(4)}`]
  if (job.f0Mean !== undefined) settings.push('--setf', `int_f0_target_mean=${job.f0Mean.toFixed(2)}`)
  const run = flite.run(['-psdur', '-voice', job.voice, ...settings, '-t', padded, 'out.wav'])
  const wav = run.file('out.wav')
  if (!wav) throw new Error('flite wrote no audio')
  return { wav, trace: run.stdout, words, groups }
}
