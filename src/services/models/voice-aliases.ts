import { ConfigError } from '../../config/load.js'
import { SpeechError } from '../../errors.js'
import { DEFAULT_VOICES } from '../../voices/builtin.js'

const ENGLISH = DEFAULT_VOICES.en!

/**
 * Fish cloud voices that clients name by default, so they speak out of the box instead of failing with
 * "not found": each maps to Parla's default voice for the voice's language (all English so far).
 */
export const SHIPPED_ALIASES: Readonly<Record<string, string>> = {
  // LiveKit Agents fishaudio plugin's default voice_id ("Sarah"; also the Fish docs' example voice).
  '933563129e564b19a115bedd57b7406a': ENGLISH,
  // GetStream Vision Agents Fish plugin's default reference_id.
  '03397b4c4be74759b72533b663fbd001': ENGLISH,
  // The official Python SDK's README and docstring example reference_id.
  '802e3bc2b27e49c2995d23ef70e6ac89': ENGLISH,
}

export interface VoiceAliases {
  /** The model an id Parla does not have stands for, or undefined. The first use of each alias is reported. */
  resolve(id: string): string | undefined
  /** Where first uses are reported (the server's logger); until set, they are not reported. */
  onFirstUse(listener: (alias: string, target: string) => void): void
}

/** Shipped aliases plus the `voiceAliases` setting (`id=model,id=model`; `id=` drops a shipped one). */
export function createVoiceAliases(setting: string): VoiceAliases {
  const map = new Map(Object.entries(SHIPPED_ALIASES))
  for (const pair of setting.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=')
    const alias = pair.slice(0, eq).trim()
    if (eq < 0 || alias === '') {
      throw new ConfigError(`setting "voiceAliases": "${pair}" is not id=model; write e.g. voiceAliases=933563129e564b19a115bedd57b7406a=festival-slt`)
    }
    const target = pair.slice(eq + 1).trim()
    if (target === '') map.delete(alias)
    else map.set(alias, target)
  }
  const reported = new Set<string>()
  let listener: ((alias: string, target: string) => void) | undefined
  return {
    resolve(id) {
      const target = map.get(id)
      if (target !== undefined && listener && !reported.has(id)) {
        reported.add(id)
        listener(id, target)
      }
      return target
    },
    onFirstUse(l) {
      listener = l
    },
  }
}

/** Reads model `id`; when there is none (to this account) and `id` is an alias, the model it stands for. */
export async function getOrAlias<T>(get: (accountId: string, id: string) => Promise<T>, aliases: VoiceAliases, accountId: string, id: string): Promise<T> {
  try {
    return await get(accountId, id)
  } catch (err) {
    const target = err instanceof SpeechError && err.code === 'not_found' ? aliases.resolve(id) : undefined
    if (target === undefined) throw err
    return get(accountId, target)
  }
}
