/**
 * Every fuzzed surface, in one list. A new surface (OpenAI, Wyoming, the playground's API use) adds a module
 * exporting `FuzzProperty`s that use the shared arbitraries and invariants, and one line here.
 */
import { fishHttpProperties } from './fish-http.js'
import { fishLiveProperties } from './fish-live.js'
import { fishUploadProperties } from './fish-uploads.js'
import { liveAsrProperties } from './live-asr.js'
import { openAiProperties } from './openai.js'
import type { FuzzProperty } from './property.js'
import { wyomingProperties } from './wyoming.js'

export function allProperties(): readonly FuzzProperty[] {
  return [...fishHttpProperties, ...fishUploadProperties(), ...fishLiveProperties, ...liveAsrProperties, ...openAiProperties(), ...wyomingProperties]
}

/** Settings of the server under fuzz: short receive timeouts, so a case that stalls a body ends quickly. */
export const FUZZ_SERVER_SETTINGS = { headersTimeoutSec: 2, bodyIdleTimeoutSec: 2, bodyTimeoutSec: 20 } as const
