/**
 * Intelligibility round trip: Parla's default voice (no reference_id; festival slt through Parla) and
 * festival's own pipeline with the same voice (`text2wave`) speak the same sentences; the independent
 * pocketsphinx command-line tool transcribes both; word error rates are printed side by side, overall and per
 * group (plain sentences, and each normalization category, ten items each: `intelligibility-items.ts`), and how
 * many items of each group were heard exactly right, and in how many the normalized tokens' own words (bracketed
 * in the items) were heard right. A third rendering, festival's own pipeline reading Parla's
 * normalized words, tells a miss of Parla's text (festival on Parla's words misheard too, where festival on the
 * raw text was heard) from the voice's or the recognizer's (every rendering misheard alike). Runs of single
 * letters are joined before scoring ("u s a" = "usa"), as the recognizer writes initialisms either way.
 * Run: npm run bench:intelligibility [-- --verbose] [--voice=<reference_id>] [--loudness=<LUFS>]. `--voice` has
 * Parla speak with another voice than the default (festival's columns stay slt); `--loudness` sets the server's
 * `loudnessTarget` (with "=": the value is negative). Env BENCH_GROUPS (comma-separated group names) runs only
 * those groups.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { alignWords, corpusWer, normalizeWords } from '../src/asr/wer.js'
import { planText } from '../src/text/plan.js'
import { NORMALIZATION_ITEMS, type Item } from './intelligibility-items.js'
import { startBenchServer } from './server.js'

const harvard = readFileSync(join(import.meta.dirname, '..', 'test', 'fixtures', 'language', 'en-harvard.txt'), 'utf8')
  .trim().split('\n').slice(100, 130).map((text) => ({ group: 'plain', text, said: text }))

const { values: ARGS } = parseArgs({
  options: { verbose: { type: 'boolean' }, voice: { type: 'string' }, loudness: { type: 'string' } },
})

/** `BENCH_GROUPS=times,acronyms`: only those groups (a quick re-check of one category). */
const GROUPS = process.env.BENCH_GROUPS?.split(',').map((g) => g.trim())
const ITEMS: readonly Item[] = [...harvard, ...NORMALIZATION_ITEMS].filter((i) => !GROUPS || GROUPS.includes(i.group))

function recognise(wav: string): string {
  return execFileSync('pocketsphinx_continuous', ['-infile', wav, '-logfn', '/dev/null'], { encoding: 'utf8' }).replace(/\s+/g, ' ').trim()
}

function festivalWav(text: string, dir: string, name: string): string {
  const txt = join(dir, `${name}.txt`)
  const wav = join(dir, `${name}.wav`)
  writeFileSync(txt, text)
  execFileSync('text2wave', ['-eval', '(voice_cmu_us_slt_arctic_hts)', '-F', '16000', '-o', wav, txt])
  return wav
}

/** Parla's words for `text`: what its English normalization hands the engine. */
const parlaWords = (text: string) =>
  planText(text, { dialect: 's2-pro', normalize: true, chunkLength: 300, minChunkLength: 0, latency: 'normal' }).map((c) => c.spoken).join(' ')

/** Letters spelled one by one are one word however the recognizer writes them: "u s a" and "usa" alike. */
const joinLetters = (words: string) => words.replace(/\b[a-z](?: [a-z]\b)+/g, (run) => run.replace(/ /g, ''))

/** The words a listener should hear, without the brackets that mark the tokens. */
const unbracketed = (said: string) => said.replace(/[[\]]/g, '')

/**
 * Whether every bracketed token of `said` was heard right in `hypothesis`: each of its words matched and
 * nothing inserted between them ("nine one and one" is not 911). Letters are joined first, as for the WER.
 */
function tokensHeard(said: string, hypothesis: string): boolean {
  const joined = joinLetters(said)
  const { heard, insertedBefore } = alignWords(normalizeWords(joined), normalizeWords(joinLetters(hypothesis)))
  return [...joined.matchAll(/\[([^\]]*)\]/g)].every((span) => {
    const first = normalizeWords(joined.slice(0, span.index)).length
    const last = first + normalizeWords(span[1]!).length - 1
    for (let i = first; i <= last; i++) if (!heard[i] || (i > first && insertedBefore[i]! > 0)) return false
    return true
  })
}

interface Row { readonly item: Item, readonly parla: string, readonly festival: string, readonly festivalOnParlaWords: string }

async function main(): Promise<void> {
  const voice = ARGS.voice ? `voice ${ARGS.voice}` : 'the default voice'
  const level = ARGS.loudness ? `${ARGS.loudness} LUFS` : 'the default level'
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${ITEMS.length} sentences; Parla speaks with ${voice} at ${level}`)
  const dir = await mkdtemp(join(tmpdir(), 'parla-intelligibility-'))
  const server = await startBenchServer(ARGS.loudness ? { loudnessTarget: Number(ARGS.loudness) } : {}, ['tts'])
  const rows: Row[] = []
  try {
    for (const [i, item] of ITEMS.entries()) {
      const res = await fetch(`${server.url}/v1/tts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: item.text, format: 'wav', sample_rate: 16000, ...(ARGS.voice && { reference_id: ARGS.voice }) }),
      })
      if (!res.ok) throw new Error(`/v1/tts answered ${res.status}: ${await res.text()}`)
      const wav = join(dir, `p${i}.wav`)
      writeFileSync(wav, new Uint8Array(await res.arrayBuffer()))
      const festival = recognise(festivalWav(item.text, dir, `f${i}`))
      // Normalization items only: plain sentences are the same words either way.
      const festivalOnParlaWords = item.group === 'plain' ? festival : recognise(festivalWav(parlaWords(item.text), dir, `n${i}`))
      rows.push({ item, parla: recognise(wav), festival, festivalOnParlaWords })
    }
  } finally {
    await server.stop()
    await rm(dir, { recursive: true, force: true })
  }
  const scored = (r: Row, pick: (r: Row) => string) => ({ reference: joinLetters(unbracketed(r.item.said)), hypothesis: joinLetters(pick(r)) })
  const wer = (list: readonly Row[], pick: (r: Row) => string) => (corpusWer(list.map((r) => scored(r, pick))).wer * 100).toFixed(1).padStart(6)
  const right = (list: readonly Row[], pick: (r: Row) => string) => list.filter((r) => corpusWer([scored(r, pick)]).wer === 0).length
  const tokens = (list: readonly Row[], pick: (r: Row) => string) => {
    const withTokens = list.filter((r) => r.item.said.includes('['))
    return withTokens.length === 0 ? '—' : `${withTokens.filter((r) => tokensHeard(r.item.said, pick(r))).length}/${withTokens.length}`
  }
  console.log('| group | n | Parla WER | festival WER | festival on Parla\'s words WER | heard right: Parla | festival on Parla\'s words | tokens heard: Parla | festival | festival on Parla\'s words |')
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const g of ['all', ...new Set(ITEMS.map((i) => i.group))]) {
    const list = g === 'all' ? rows : rows.filter((r) => r.item.group === g)
    const n = list.length
    console.log(`| ${g} | ${n} | ${wer(list, (r) => r.parla)} % | ${wer(list, (r) => r.festival)} % | ${wer(list, (r) => r.festivalOnParlaWords)} % | ${right(list, (r) => r.parla)}/${n} | ${right(list, (r) => r.festivalOnParlaWords)}/${n} | ${tokens(list, (r) => r.parla)} | ${tokens(list, (r) => r.festival)} | ${tokens(list, (r) => r.festivalOnParlaWords)} |`)
  }
  if (ARGS.verbose) {
    for (const r of rows) {
      console.log(`${r.item.text}\n  Parla:    ${r.parla}\n  festival: ${r.festival}\n  festival on "${parlaWords(r.item.text)}": ${r.festivalOnParlaWords}`)
    }
  }
}

await main()
