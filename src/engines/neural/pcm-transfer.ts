/**
 * How a sentence's samples cross from the neural process: 16-bit, scaled to the sentence's own peak, half the
 * bytes of float samples (a 3 s sentence at 22.05 kHz: 145 KB instead of 290 KB through the IPC socket, which
 * stands between the runtime's audio and the first byte sent). Scaled to the peak, the quantisation step is at
 * most one step of 16-bit output after any later gain (levelling never lifts a peak above -0.5 dBFS).
 */
export interface TransferPcm {
  readonly pcm: Int16Array
  /** The samples are `pcm[i] * scale`. */
  readonly scale: number
}

export function toTransfer(samples: Float32Array): TransferPcm {
  const n = samples.length
  let top = 0
  for (let i = 0; i < n; i++) {
    const a = Math.abs(samples[i]!)
    if (a > top && a !== Infinity) top = a
  }
  const pcm = new Int16Array(n)
  // Silence, or nothing but non-finite samples: all zeros (a non-finite sample is 0 in an Int16Array).
  if (top === 0) return { pcm, scale: 0 }
  const toPcm = 32767 / top
  for (let i = 0; i < n; i++) pcm[i] = Math.round(samples[i]! * toPcm)
  return { pcm, scale: top / 32767 }
}

export function fromTransfer({ pcm, scale }: TransferPcm): Float32Array {
  const n = pcm.length
  const samples = new Float32Array(n)
  for (let i = 0; i < n; i++) samples[i] = pcm[i]! * scale
  return samples
}
