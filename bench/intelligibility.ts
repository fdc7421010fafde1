/**
 * Intelligibility round trip: Parla's default voice (no reference_id; festival slt through Parla) and
 * festival's own pipeline with the same voice (`text2wave`) speak the same sentences; the independent
 * pocketsphinx command-line tool transcribes both; word error rates are printed side by side, overall and per
 * group (plain sentences, and each normalization category). References are the words a listener should hear,
 * spelled as the recognizer's dictionary writes them ("fbi", "pm").
 * Run: npm run bench:intelligibility
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { corpusWer } from '../src/asr/wer.js'
import { startBenchServer } from './server.js'

interface Item { readonly group: string, readonly text: string, readonly said: string }

const harvard = readFileSync(join(import.meta.dirname, '..', 'test', 'fixtures', 'language', 'en-harvard.txt'), 'utf8')
  .trim().split('\n').slice(100, 130).map((text) => ({ group: 'plain', text, said: text }))

/** Normalization categories of issue 15, a few items each, with what should be heard. */
const NORMALIZATION: readonly Item[] = [
  ['acronyms', 'The CEO of NASA spoke.', 'the ceo of nasa spoke'],
  ['acronyms', 'The FBI called the BBC.', 'the fbi called the bbc'],
  ['acronyms', 'He moved to D.C. last year.', 'he moved to dc last year'],
  ['versions', 'Version 2.0 is ready.', 'version two point zero is ready'],
  ['versions', 'The rate fell to 3.5 percent.', 'the rate fell to three point five percent'],
  ['large numbers', 'The city has 8,000,000 people.', 'the city has eight million people'],
  ['large numbers', 'They sold 1,250 tickets.', 'they sold one thousand two hundred fifty tickets'],
  ['ordinals', 'She came 21st in the race.', 'she came twenty first in the race'],
  ['dates', 'He was born on 12/25/1948.', 'he was born on december twenty fifth nineteen forty eight'],
  ['dates', 'The meeting is on March 4, 2025.', 'the meeting is on march fourth twenty twenty five'],
  ['times', 'The train leaves at 7:45 pm.', 'the train leaves at seven forty five pm'],
  ['currencies', 'It costs $5.50 today.', 'it costs five dollars and fifty cents today'],
  ['units', 'We walked 5 km in the rain.', 'we walked five kilometers in the rain'],
  ['phone numbers', 'Call 555-1234 now.', 'call five five five one two three four now'],
  ['e-mail and URLs', 'Write to anna@example.com today.', 'write to anna at example dot com today'],
  ['symbols', 'Salt & pepper, 50% off.', 'salt and pepper fifty percent off'],
].map(([group, text, said]) => ({ group: group!, text: text!, said: said! }))

const ITEMS: readonly Item[] = [...harvard, ...NORMALIZATION]

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
