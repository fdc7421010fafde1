import { VAD_FRAME } from '../../../asr/frame-vad.js'
import { int16ToFloat32 } from '../../../audio/signal.js'
import { SILERO_WINDOW, type SileroVad } from '../../../engines/neural/silero-vad.js'
import type { VoiceDetectorSource } from './voice-detector.js'

/**
 * Silero VAD (a neural detector, far less fooled by noise and music than libfvad) when its model is installed.
 * The session's threshold is the speech probability a window must reach, as OpenAI's `server_vad` defines it.
 */
export function sileroSource(vad: SileroVad): VoiceDetectorSource {
  return {
    name: 'silero-vad',
    async open(settings) {
      const stream = await vad.open(settings.threshold)
      let sent = 0
      let windows = 0
      let last = false
      return {
        async detect(pcm) {
          const flags = await stream.accept(int16ToFloat32(pcm))
          // A frame takes the flag of the window its last sample is in, or the latest one while that window
          // is still filling (a frame judged up to 22 ms late, which the turn detector's smoothing absorbs).
          const out: boolean[] = []
          for (let end = sent + VAD_FRAME; end <= sent + pcm.length; end += VAD_FRAME) {
            const i = Math.floor((end - 1) / SILERO_WINDOW) - windows
            out.push(i < flags.length ? flags[i]! : (flags.at(-1) ?? last))
          }
          sent += pcm.length
          windows += flags.length
          last = flags.at(-1) ?? last
          return out
        },
        close: () => stream.close(),
      }
    },
  }
}
