/**
 * Intelligibility round trip: Parla's default voice (no reference_id; festival slt through Parla) and
 * festival's own pipeline with the same voice (`text2wave`) speak the same sentences; the independent
 * pocketsphinx command-line tool transcribes both; word error rates are printed side by side, overall and per
 * group (plain sentences, and each normalization category, ten items each: `intelligibility-items.ts`), and how
 * many items of each group Parla got heard exactly right.
 * Run: npm run bench:intelligibility
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { corpusWer } from '../src/asr/wer.js'
import { NORMALIZATION_ITEMS, type Item } from './intelligibility-items.js'
import { startBenchServer } from './server.js'

const harvard = readFileSync(join(import.meta.dirname, '..', 'test', 'fixtures', 'language', 'en-harvard.txt'), 'utf8')
  .trim().split('\n').slice(100, 130).map((text) => ({ group: 'plain', text, said: text }))

const ITEMS: readonly Item[] = [...harvard, ...NORMALIZATION_ITEMS]

function recognise(wav: string): string {
  return execFileSync('pocketsphinx_continuous', ['-infile', wav, '-logfn', '/dev/null'], { encoding: 'utf8' }).replace(/\s+/g, ' ').trim()
}

function festivalWav(text: string, dir: string, i: number): string {
  const txt = join(dir, `f${i}.txt`)
  const wav = join(dir, `f${i}.wav`)
  writeFileSync(txt, text)
  execFileSync('text2wave', ['-eval', '(voice_cmu_us_slt_arctic_hts)', '-F', '16000', '-o', wav, txt])
  return wav
}

async function main(): Promise<void> {
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${ITEMS.length} sentences`)
  const dir = await mkdtemp(join(tmpdir(), 'parla-intelligibility-'))
  const server = await startBenchServer({}, ['tts'])
  const rows: { item: Item, parla: string, festival: string }[] = []
  try {
    for (const [i, item] of ITEMS.entries()) {
      const res = await fetch(`${server.url}/v1/tts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: item.text, format: 'wav', sample_rate: 16000 }),
      })
      if (!res.ok) throw new Error(`/v1/tts answered ${res.status}: ${await res.text()}`)
      const wav = join(dir, `p${i}.wav`)
      writeFileSync(wav, new Uint8Array(await res.arrayBuffer()))
      rows.push({ item, parla: recognise(wav), festival: recognise(festivalWav(item.text, dir, i)) })
    }
  } finally {
    await server.stop()
    await rm(dir, { recursive: true, force: true })
  }
  const wer = (list: typeof rows, pick: (r: typeof rows[number]) => string) =>
    (corpusWer(list.map((r) => ({ reference: r.item.said, hypothesis: pick(r) }))).wer * 100).toFixed(1)
  console.log('group              n   Parla WER  festival WER  Parla items heard right')
  const groups = ['all', ...new Set(ITEMS.map((i) => i.group))]
  for (const g of groups) {
    const list = g === 'all' ? rows : rows.filter((r) => r.item.group === g)
    const right = list.filter((r) => corpusWer([{ reference: r.item.said, hypothesis: r.parla }]).wer === 0).length
    console.log(`${g.padEnd(18)} ${String(list.length).padStart(2)}   ${wer(list, (r) => r.parla).padStart(6)}%    ${wer(list, (r) => r.festival).padStart(6)}%     ${right}/${list.length}`)
  }
  if (process.argv.includes('--verbose')) {
    for (const r of rows) console.log(`${r.item.text}\n  Parla:    ${r.parla}\n  festival: ${r.festival}`)
  }
}

await main()
