/** Language names that sherpa-onnx model metadata uses (`language=English`) → codes. */
const NAMES: Readonly<Record<string, string>> = {
  english: 'en', chinese: 'zh', german: 'de', french: 'fr', spanish: 'es', italian: 'it', portuguese: 'pt',
  russian: 'ru', japanese: 'ja', korean: 'ko', dutch: 'nl', polish: 'pl', ukrainian: 'uk', arabic: 'ar',
  turkish: 'tr', czech: 'cs', swedish: 'sv', finnish: 'fi', greek: 'el', hindi: 'hi', vietnamese: 'vi',
}

/** `en_US`, `en-us`, `English` → `en-us` / `en`; unknown names are dropped. */
export function languageCode(value: string): string | undefined {
  const v = value.trim().toLowerCase().replace('_', '-')
  if (/^[a-z]{2,3}(-[a-z0-9]{2,4})?$/.test(v)) return v
  return NAMES[v]
}
