/**
 * Cheap level measurements of a voice sample. They are not a speech-quality model: they catch the usual
 * upload mistakes (silence, clipping, a recording that is mostly background) so the model can say why a
 * sample was not used.
 */
export interface LevelStats {
  readonly peak: number
  readonly clippingRatio: number
  readonly rmsDbfs: number
  readonly silenceRatio: number
  readonly snrDb: number
}

const FRAME_SEC = 0.02
const SILENCE_DBFS = -50
const FLOOR_DBFS = -120
const SNR_CAP_DB = 60

const dbfs = (power: number) => (power > 0 ? Math.max(FLOOR_DBFS, 10 * Math.log10(power)) : FLOOR_DBFS)

export function measureLevels(samples: Float32Array, sampleRate: number): LevelStats {
  const n = samples.length
  if (n === 0) return { peak: 0, clippingRatio: 0, rmsDbfs: FLOOR_DBFS, silenceRatio: 1, snrDb: 0 }
  let peak = 0
  let clipped = 0
  let sum = 0
  for (let i = 0; i < n; i++) {
    const a = Math.abs(samples[i]!)
    if (a > peak) peak = a
    if (a >= 0.999) clipped++
    sum += a * a
  }
  const frame = Math.max(1, Math.round(sampleRate * FRAME_SEC))
  const powers: number[] = []
  for (let start = 0; start < n; start += frame) {
    const end = Math.min(n, start + frame)
    let p = 0
    for (let i = start; i < end; i++) p += samples[i]! * samples[i]!
    powers.push(p / (end - start))
  }
  const silent = powers.filter((p) => dbfs(p) < SILENCE_DBFS).length
  const sorted = [...powers].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  const loud = at(0.9)
  const quiet = at(0.1)
  const snrDb = loud <= 0 ? 0 : quiet <= 0 ? SNR_CAP_DB : Math.min(SNR_CAP_DB, 10 * Math.log10(loud / quiet))
  return {
    peak: round(peak, 4),
    clippingRatio: round(clipped / n, 5),
    rmsDbfs: round(dbfs(sum / n), 2),
    silenceRatio: round(silent / powers.length, 4),
    snrDb: round(snrDb, 2),
  }
}

const round = (x: number, digits: number) => Number(x.toFixed(digits))

/** The thresholds a sample must meet to be used for the voice. */
export const QUALITY_LIMITS = {
  minSampleRate: 8000,
  minRmsDbfs: -45,
  maxClippingRatio: 0.01,
  maxSilenceRatio: 0.8,
  minSnrDb: 10,
} as const

/** Every reason the sample fails the limits, or none. */
export function qualityProblems(stats: LevelStats, sampleRate: number): string[] {
  const L = QUALITY_LIMITS
  const problems: string[] = []
  if (sampleRate < L.minSampleRate) problems.push(`sample rate ${sampleRate} Hz is below ${L.minSampleRate} Hz`)
  if (stats.rmsDbfs < L.minRmsDbfs) problems.push(`too quiet: level ${stats.rmsDbfs} dBFS is below ${L.minRmsDbfs} dBFS`)
  if (stats.clippingRatio > L.maxClippingRatio) {
    problems.push(`clipped: ${pct(stats.clippingRatio)} of samples at full scale (limit ${pct(L.maxClippingRatio)})`)
  }
  if (stats.silenceRatio > L.maxSilenceRatio) {
    problems.push(`mostly silence: ${pct(stats.silenceRatio)} of the audio is silent (limit ${pct(L.maxSilenceRatio)})`)
  }
  if (stats.rmsDbfs >= L.minRmsDbfs && stats.snrDb < L.minSnrDb) {
    problems.push(`too noisy: speech is only ${stats.snrDb} dB above the background (need ${L.minSnrDb} dB)`)
  }
  return problems
}

const pct = (x: number) => `${Number((x * 100).toFixed(2))}%`
