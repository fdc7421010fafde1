/**
 * `ttsRoutes`: which voice speaks when a request names none, by its `model` header and language. The
 * setting is a list of `<model>[:<language>]=<voice model id>` entries separated by spaces, commas or
 * semicolons; `*` stands for any header, including an unknown or missing one. The most specific entry wins:
 * header and language, header and base language, header alone, then the same for `*`.
 * Example: `s2-pro=neural-en-us-amy-low s2-pro:de=neural-de-de-thorsten-low *=festival-slt`.
 */
export type VoiceRoutes = (model: string, language: string) => string | undefined

export function parseVoiceRoutes(spec: string): VoiceRoutes {
  const table = new Map<string, string>()
  for (const entry of spec.split(/[\s,;]+/).filter(Boolean)) {
    const m = /^([a-z0-9*._-]+)(?::([a-z]{2,3}(?:-[a-z0-9]{2,4})?))?=([a-z0-9][a-z0-9-]*)$/i.exec(entry)
    if (!m) throw new Error(`ttsRoutes: cannot read "${entry}"; write <model>[:<language>]=<voice model id>, e.g. s2-pro:de=neural-de-de-thorsten-low`)
    table.set(key(m[1]!, m[2]), m[3]!.toLowerCase())
  }
  return (model, language) => {
    const lang = language.toLowerCase()
    const base = lang.split('-')[0]!
    const header = model.trim().toLowerCase()
    for (const h of [header, '*']) {
      for (const l of [lang, base, undefined]) {
        const hit = table.get(key(h, l))
        if (hit) return hit
      }
    }
    return undefined
  }
}

const key = (model: string, language: string | undefined) => `${model.toLowerCase()}\u0000${language?.toLowerCase() ?? ''}`
