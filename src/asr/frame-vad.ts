/**
 * Voice activity one 10 ms frame at a time (libfvad), for audio that arrives live: `detectSpeech` in vad.ts
 * works on whole recordings.
 */
import { SpeechError } from '../errors.js'
import { loadFvad } from './vad.js'

/** 10 ms at 16 kHz: the frame `FrameVad.voiced` takes. */
export const VAD_FRAME = 160

export interface FrameVad {
  /** True when the frame (160 samples, 16 kHz) is speech. */
  voiced(frame: Int16Array): boolean
  /** Frees the detector; call once. */
  close(): void
}

export interface FrameVadOptions {
  /** libfvad aggressiveness 0..3; higher rejects more non-speech. */
  readonly mode: 0 | 1 | 2 | 3
  /** Frames quieter than this RMS (dBFS) never count as speech. Default -55. */
  readonly floorDb?: number
}

export async function createFrameVad(options: FrameVadOptions): Promise<FrameVad> {
  const m = await loadFvad()
  const inst = m._fvad_new()
  const ptr = m._malloc(VAD_FRAME * 2)
  if (m._fvad_set_mode(inst, options.mode) < 0 || m._fvad_set_sample_rate(inst, 16_000) < 0) {
    m._free(ptr)
    m._fvad_free(inst)
    throw new SpeechError('internal_error', '[vad] libfvad rejected its settings')
  }
  const floor = 10 ** ((options.floorDb ?? -55) / 20) * 32768
  const floorEnergy = floor * floor * VAD_FRAME
  let open = true
  return {
    voiced(frame) {
      if (!open || frame.length !== VAD_FRAME) return false
      let energy = 0
      for (let i = 0; i < VAD_FRAME; i++) energy += frame[i]! * frame[i]!
      if (energy < floorEnergy) return false
      m.HEAP16.set(frame, ptr >> 1)
      return m._fvad_process(inst, ptr, VAD_FRAME) === 1
    },
    close() {
      if (!open) return
      open = false
      m._free(ptr)
      m._fvad_free(inst)
    },
  }
}
