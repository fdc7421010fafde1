import type { CatalogEntry, CatalogFile } from './catalog-types.js'

/*
 * The catalog's facts, each from its publisher:
 * - Piper voices: path, size and MD5 of each file from piper-voices' voices.json, as copied into
 *   rhasspy/wyoming-piper (wyoming_piper/voices.json, commit fd78db7f, updated 2026-07-08); served from
 *   huggingface.co/rhasspy/piper-voices. The repository's licence is MIT; each voice's MODEL_CARD names its
 *   dataset and that dataset's licence. Where huggingface's page for a model file shows its Git LFS SHA-256
 *   (the object added by the commit the voice came with), it is stored too.
 * - Silero VAD: the ONNX model in snakers4/silero-vad at commit 806dcba3 (MIT), its size and SHA-256 as that
 *   commit holds it (test/fixtures/models/silero-vad is the same file).
 * - sherpa-onnx release archives (Kokoro, ZipVoice, Whisper, Moonshine, streaming Zipformer): names from
 *   sherpa-onnx's release workflows and documentation. sherpa-onnx publishes no size or checksum for them, so none is stored: `pull`
 *   checks the download against the server's Content-Length and unpacks it only if the archive is whole.
 */

const PIPER = 'https://huggingface.co/rhasspy/piper-voices/resolve/main/'
const TTS_RELEASE = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/tts-models/'
const ASR_RELEASE = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models/'

/** A Piper voice: its `.onnx` (path, size, MD5) and its `.onnx.json` (size, MD5) beside it. */
function piper(name: string, language: string, speakers: number, model: [string, number, string, string?], config: [number, string]): CatalogEntry {
  const [path, size, md5, sha256] = model
  const folder = path.slice(0, path.lastIndexOf('/') + 1)
  return {
    name, kind: 'tts', family: 'piper', languages: [language], speakers,
    licence: 'MIT (piper-voices); dataset licence in the MODEL_CARD', licenceUrl: `${PIPER}${folder}MODEL_CARD`,
    files: [{ url: `${PIPER}${path}`, size, md5, ...(sha256 && { sha256 }) }, { url: `${PIPER}${path}.json`, size: config[0], md5: config[1] }],
  }
}

const archive = (base: string, name: string): CatalogFile => ({ url: `${base}${name}.tar.bz2` })

const whisper = (size: string, english: boolean): CatalogEntry => ({
  name: `sherpa-onnx-whisper-${size}${english ? '.en' : ''}`, aliases: [`whisper-${size}${english ? '.en' : ''}`],
  kind: 'asr', family: 'whisper', languages: english ? ['en'] : ['mul'],
  licence: 'MIT (openai/whisper)', licenceUrl: 'https://github.com/openai/whisper/blob/main/LICENSE',
  files: [archive(ASR_RELEASE, `sherpa-onnx-whisper-${size}${english ? '.en' : ''}`)],
})

const moonshine = (size: string): CatalogEntry => ({
  name: `sherpa-onnx-moonshine-${size}-en-int8`, aliases: [`moonshine-${size}`],
  kind: 'asr', family: 'moonshine', languages: ['en'],
  licence: 'MIT (usefulsensors/moonshine)', licenceUrl: 'https://github.com/usefulsensors/moonshine/blob/main/LICENSE',
  files: [archive(ASR_RELEASE, `sherpa-onnx-moonshine-${size}-en-int8`)],
})

const kokoro = (name: string, languages: string[], alias?: string): CatalogEntry => ({
  name, ...(alias && { aliases: [alias] }), kind: 'tts', family: 'kokoro', languages,
  licence: 'Apache-2.0 (hexgrad/Kokoro-82M)', licenceUrl: 'https://huggingface.co/hexgrad/Kokoro-82M',
  files: [archive(TTS_RELEASE, name)],
})

export const CATALOG: readonly CatalogEntry[] = [
  piper('en_US-amy-low', 'en-us', 1, ['en/en_US/amy/low/en_US-amy-low.onnx', 63104526, '3c3f6a6ec605f3a59763256d3b2db012'], [4164, '85a339b51379b13bbbb0784382ca75bc']),
  piper('en_US-amy-medium', 'en-us', 1, ['en/en_US/amy/medium/en_US-amy-medium.onnx', 63201294, '778d28aeb95fcdf8a882344d9df142fc'], [4882, '7f37dadb26340c90ebc8088e0b252310']),
  piper('en_US-lessac-low', 'en-us', 1, ['en/en_US/lessac/low/en_US-lessac-low.onnx', 63201294, '31883a7506589feadf3c3474fd8ef658', 'f7d01dde371555732c4c314111ac79672b1a5ce2fc19266ab42178fd8df7f375'], [4882, '64876daa19dd042b368cd64fa379a75f']),
  piper('en_US-lessac-medium', 'en-us', 1, ['en/en_US/lessac/medium/en_US-lessac-medium.onnx', 63201294, '2fc642b535197b6305c7c8f92dc8b24f', '5efe09e69902187827af646e1a6e9d269dee769f9877d17b16b1b46eeaaf019f'], [4885, 'c1f2b7bddefe113f3255ff9ef234cfd3']),
  piper('en_US-lessac-high', 'en-us', 1, ['en/en_US/lessac/high/en_US-lessac-high.onnx', 113895201, '99d1f6181a7f5ccbe3f117ba8ce63c93'], [4883, '02e8e364c86b5d3b75e81704b0369856']),
  piper('en_US-ryan-medium', 'en-us', 1, ['en/en_US/ryan/medium/en_US-ryan-medium.onnx', 63201294, '8f06d3aff8ded5a7f13f907e6bec32ac', 'abf4c274862564ed647ba0d2c47f8ee7c9b717d27bdad9219100eb310db4047a'], [4883, 'f173a2b5202b3e4128ccc3ed8195306c']),
  piper('en_US-libritts_r-medium', 'en-us', 904, ['en/en_US/libritts_r/medium/en_US-libritts_r-medium.onnx', 78580914, 'bb2c2776cffbfd736c7c497f620c0ca6', '10bb85e071d616fcf4071f369f1799d0491492ab3c5d552ec19fb548fac13195'], [20123, 'c740db18a0dab11b13ce0292ea1196c6']),
  piper('en_GB-alan-medium', 'en-gb', 1, ['en/en_GB/alan/medium/en_GB-alan-medium.onnx', 63201294, '8f6b35eeb8ef6269021c6cb6d2414c9b'], [4888, 'b11d9afd0a8f5372c42a52fbd6e021d4']),
  piper('en_GB-alba-medium', 'en-gb', 1, ['en/en_GB/alba/medium/en_GB-alba-medium.onnx', 63201294, 'c07f313752bb3aba8061041666251654'], [4888, 'dbb6f2ede31082710665221417906e13']),
  piper('de_DE-thorsten-low', 'de-de', 1, ['de/de_DE/thorsten/low/de_DE-thorsten-low.onnx', 63104526, 'c06eb96aceb61895fcb09ffc30eef60b'], [4159, 'c4a38327b98f25524128def8190e8ca0']),
  piper('de_DE-thorsten-medium', 'de-de', 1, ['de/de_DE/thorsten/medium/de_DE-thorsten-medium.onnx', 63201294, 'a129b00fb3078df43c96bab6c94535c0'], [4819, '843a7bd7272724f750534dd5a26d1aad']),
  piper('de_DE-thorsten-high', 'de-de', 1, ['de/de_DE/thorsten/high/de_DE-thorsten-high.onnx', 113895201, '256505fe58fb8b9d6ed78b83f6b8a9d2'], [4875, 'e81686e00a9d825e2488ead660bec6fd']),
  piper('fr_FR-siwis-medium', 'fr-fr', 1, ['fr/fr_FR/siwis/medium/fr_FR-siwis-medium.onnx', 63201294, '20e876e8c839e9b11a26085858f2300c'], [4875, 'a407e7e6901feb79c2ea2a5466076cce']),
  piper('fr_FR-upmc-medium', 'fr-fr', 2, ['fr/fr_FR/upmc/medium/fr_FR-upmc-medium.onnx', 76733615, '6837ede9408c7e1b39fa4a126af9e865'], [4996, '574571ae93aba72dbd159582981037da']),
  piper('es_ES-davefx-medium', 'es-es', 1, ['es/es_ES/davefx/medium/es_ES-davefx-medium.onnx', 63201294, 'dc515cd4ecc5f6f72fe14a941188fc9c'], [4817, 'dd157b5eaf6930bf949cf416d9a9307a']),
  piper('es_MX-claude-high', 'es-mx', 1, ['es/es_MX/claude/high/es_MX-claude-high.onnx', 63122309, 'cb1966e0ff20ca3aa010f6c9a0ce296a'], [4963, '36882201922fabb409f18d284af3eddd']),
  piper('it_IT-riccardo-x_low', 'it-it', 1, ['it/it_IT/riccardo/x_low/it_IT-riccardo-x_low.onnx', 28130791, '2c564b67f6bfaf3ad02d28ab528929b8'], [4161, 'ed24cd550b79acbdc337e519849e9636']),
  piper('it_IT-paola-medium', 'it-it', 1, ['it/it_IT/paola/medium/it_IT-paola-medium.onnx', 63511038, '3a44e73b12ca5d0c21a72e388b5847c8'], [7099, 'cd471a3757c88a7a4baee6207248b5d5']),
  piper('nl_NL-mls-medium', 'nl-nl', 52, ['nl/nl_NL/mls/medium/nl_NL-mls-medium.onnx', 76584246, 'f1d4b1452ccfdac24be72085b2b6b55c'], [5856, '1915807d7cb85274ba957846370fff39']),
  piper('nl_BE-nathalie-medium', 'nl-be', 1, ['nl/nl_BE/nathalie/medium/nl_BE-nathalie-medium.onnx', 63201294, 'ab0c38b5f66764b59ad9e3e98b1c2172'], [4879, '13c6e6c9511447e1906c25748a93f0bd']),
  piper('pt_BR-faber-medium', 'pt-br', 1, ['pt/pt_BR/faber/medium/pt_BR-faber-medium.onnx', 63201294, 'e0724a2f07965f6523d2a1e96b488a4c'], [4855, 'a1258e1e113c47d9a1486a9bef1daab4']),
  piper('pl_PL-gosia-medium', 'pl-pl', 1, ['pl/pl_PL/gosia/medium/pl_PL-gosia-medium.onnx', 63201294, 'ecf817530e575025166e454adde1f382'], [4814, 'e57055b9eec14e570617af2b716bd5c3']),
  piper('ru_RU-irina-medium', 'ru-ru', 1, ['ru/ru_RU/irina/medium/ru_RU-irina-medium.onnx', 63201294, '21fbe77fdc68bdc35d7adb6bf4f52199'], [4765, 'e239bb7f22d5de4a44ec6b1cb6c06bb5']),
  piper('uk_UA-ukrainian_tts-medium', 'uk-ua', 3, ['uk/uk_UA/ukrainian_tts/medium/uk_UA-ukrainian_tts-medium.onnx', 76735663, '3366c3d4f31cb77966fb14d042956b4f'], [2002, '3bf9b2b1fcc8e599947cdda4af130498']),
  piper('zh_CN-huayan-medium', 'zh-cn', 1, ['zh/zh_CN/huayan/medium/zh_CN-huayan-medium.onnx', 63201294, '40cdb7930ff91b81574d5f0489e076ea'], [4822, '1fda3ec1d0d3a5a74064397ea8fe0af0']),
  piper('sv_SE-nst-medium', 'sv-se', 1, ['sv/sv_SE/nst/medium/sv_SE-nst-medium.onnx', 63104526, '20266cf58e93ca2140444b77398aea04'], [4157, '3a95d9b88bb3214bf4d0d7fcf8a1aea9']),
  piper('tr_TR-dfki-medium', 'tr-tr', 1, ['tr/tr_TR/dfki/medium/tr_TR-dfki-medium.onnx', 63201294, 'f51287b350a042dd8d67b2b215145e5a'], [4960, '683c97d5bf7588abb4d7b9ff556c9466']),
  piper('cs_CZ-jirka-medium', 'cs-cz', 1, ['cs/cs_CZ/jirka/medium/cs_CZ-jirka-medium.onnx', 63201294, 'da2deb0a3f93226a3f9b6e40d43c46ca'], [5025, '2762e45c5b084694093c683a5da7cf94']),
  kokoro('kokoro-en-v0_19', ['en'], 'kokoro-en'),
  kokoro('kokoro-multi-lang-v1_0', ['en', 'zh'], 'kokoro-multi-lang'),
  kokoro('kokoro-multi-lang-v1_1', ['en', 'zh']),
  {
    name: 'sherpa-onnx-zipvoice-distill-int8-zh-en-emilia', aliases: ['zipvoice'], kind: 'tts', family: 'zipvoice', languages: ['zh', 'en'],
    licence: 'Apache-2.0 (k2-fsa/ZipVoice repository)', licenceUrl: 'https://github.com/k2-fsa/ZipVoice/blob/master/LICENSE',
    files: [archive(TTS_RELEASE, 'sherpa-onnx-zipvoice-distill-int8-zh-en-emilia')],
    extras: [{ url: 'https://github.com/k2-fsa/sherpa-onnx/releases/download/vocoder-models/vocos_24khz.onnx' }],
  },
  whisper('tiny', false), whisper('tiny', true),
  whisper('base', false), whisper('base', true),
  whisper('small', false), whisper('small', true),
  moonshine('tiny'), moonshine('base'),
  {
    // Exported by icefall's export-onnx-streaming.py from Zengwei/icefall-asr-librispeech-streaming-zipformer-2023-05-17.
    name: 'sherpa-onnx-streaming-zipformer-en-2023-06-26', aliases: ['streaming-zipformer-en'], kind: 'asr', family: 'streaming-transducer', languages: ['en'],
    licence: 'Apache-2.0 (k2-fsa/icefall, the recipe); the weights\' terms are on their model page',
    licenceUrl: 'https://huggingface.co/Zengwei/icefall-asr-librispeech-streaming-zipformer-2023-05-17',
    files: [archive(ASR_RELEASE, 'sherpa-onnx-streaming-zipformer-en-2023-06-26')],
  },
  {
    // Finds speech for live transcription (docs/models.md); installed as a folder holding silero_vad.onnx.
    name: 'silero-vad', kind: 'vad', family: 'silero-vad', languages: ['mul'],
    licence: 'MIT (snakers4/silero-vad repository)', licenceUrl: 'https://github.com/snakers4/silero-vad/blob/master/LICENSE',
    files: [{
      url: 'https://github.com/snakers4/silero-vad/raw/806dcba3f0b5d95282d0889a074954a2f8c6397b/src/silero_vad/data/silero_vad.onnx',
      size: 2327524, sha256: '1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3',
    }],
  },
]
