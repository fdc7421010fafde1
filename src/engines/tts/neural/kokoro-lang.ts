/**
 * The `lang` a multi-language Kokoro model gets per call: sherpa-onnx phonemizes the text outside its lexicons
 * with the eSpeak NG voice of that name, and an unknown name makes the call produce nothing. So Parla's language
 * codes become the names of eSpeak NG's voice files (`espeak-ng-data/lang/…`).
 */
const ESPEAK_VOICES: Readonly<Record<string, string>> = {
  en: 'en-us', 'en-us': 'en-us', 'en-gb': 'en-gb-x-rp', zh: 'cmn', 'zh-cn': 'cmn', cmn: 'cmn', yue: 'yue',
  pt: 'pt-br', 'pt-br': 'pt-br', 'pt-pt': 'pt', fr: 'fr', 'fr-fr': 'fr', es: 'es', hi: 'hi', it: 'it', ja: 'ja',
}

/**
 * The request's language decision when there is one, else the voice's own language, else what the text looks
 * like (Han characters: Chinese). A request in the voice's own base language keeps the voice's variant
 * (a British voice asked for `en` reads British English).
 */
export function kokoroLang(requestLanguage: string | undefined, voiceLanguages: readonly string[], text: string): string {
  const voice = voiceLanguages[0]
  const base = (l: string) => l.split('-')[0]!
  let chosen = requestLanguage?.toLowerCase() || voice || (/\p{Script=Han}/u.test(text) ? 'zh' : 'en')
  if (voice && base(chosen) === base(voice) && chosen === base(chosen)) chosen = voice
  return ESPEAK_VOICES[chosen] ?? ESPEAK_VOICES[base(chosen)] ?? base(chosen)
}
