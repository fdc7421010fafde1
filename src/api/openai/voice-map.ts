import { ConfigError } from '../../config/load.js'

/**
 * OpenAI's voice names and the built-in Parla voice each one speaks with by default. OpenAI describes its
 * voices by character, not by recording, so the choice is by register: the brighter female voices go to
 * the SLT recordings, the deeper male ones to RMS and KAL, the British-sounding ones to AWB (Scottish).
 * The `openaiVoices` setting overrides any entry, e.g. to point `alloy` at a cloned voice.
 */
export const OPENAI_VOICES: Readonly<Record<string, string>> = {
  alloy: 'festival-slt',
  ash: 'flite-rms',
  ballad: 'flite-awb',
  coral: 'flite-slt',
  echo: 'flite-rms',
  fable: 'flite-awb',
  nova: 'festival-slt',
  onyx: 'flite-kal16',
  sage: 'flite-slt',
  shimmer: 'festival-slt',
  verse: 'flite-awb',
  marin: 'festival-slt',
  cedar: 'flite-rms',
}

/** The built-in table with the `openaiVoices` setting (`name=id,name=id`) merged over it. */
export function voiceMap(setting: string): Readonly<Record<string, string>> {
  const map: Record<string, string> = { ...OPENAI_VOICES }
  for (const pair of setting.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [name, id, extra] = pair.split('=').map((p) => p.trim())
    if (!name || !id || extra !== undefined) {
      throw new ConfigError(`setting "openaiVoices": '${pair}' is not name=voice-model-id; write e.g. alloy=festival-slt,onyx=flite-rms`)
    }
    map[name.toLowerCase()] = id
  }
  return map
}
