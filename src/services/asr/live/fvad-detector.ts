import { createFrameVad, VAD_FRAME } from '../../../asr/frame-vad.js'
import { vadMode } from './turn-detector.js'
import type { VoiceDetectorSource } from './voice-detector.js'

/** libfvad (WebRTC's detector), always there: the session's threshold picks its aggressiveness. */
export const FVAD_SOURCE: VoiceDetectorSource = {
  name: 'libfvad',
  async open(settings) {
    const vad = await createFrameVad({ mode: vadMode(settings.threshold) })
    return {
      detect(pcm) {
        const flags: boolean[] = []
        for (let at = 0; at + VAD_FRAME <= pcm.length; at += VAD_FRAME) flags.push(vad.voiced(pcm.subarray(at, at + VAD_FRAME)))
        return Promise.resolve(flags)
      },
      close: () => vad.close(),
    }
  },
}
