import { describe, expect, it } from 'vitest'
import { ffmpegDecode, ffmpegEncode, irregularBlocks, speechLike } from '../../../test/support/audio.js'
import { getEncoder } from './registry.js'
import { oggCrc } from './ogg-page.js'

interface Page {
  readonly flags: number
  readonly granule: number
  readonly serial: number
  readonly sequence: number
  readonly crcOk: boolean
  readonly packets: Uint8Array[]
}

/** A small independent Ogg reader: pages, lacing, CRC (recomputed with the CRC field zeroed). */
function readPages(bytes: Uint8Array): Page[] {
  const pages: Page[] = []
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let pos = 0
  while (pos < bytes.length) {
    expect(new TextDecoder().decode(bytes.subarray(pos, pos + 4))).toBe('OggS')
    const segments = bytes[pos + 26]!
    const lacing = bytes.subarray(pos + 27, pos + 27 + segments)
    const bodyLength = lacing.reduce((a, b) => a + b, 0)
    const end = pos + 27 + segments + bodyLength
    const copy = bytes.slice(pos, end)
    copy.fill(0, 22, 26)
    const packets: Uint8Array[] = []
    let data = pos + 27 + segments
    let size = 0
    for (const l of lacing) {
      size += l
      if (l < 255) {
        packets.push(bytes.subarray(data, data + size))
        data += size
        size = 0
      }
    }
    pages.push({
      flags: bytes[pos + 5]!,
      granule: view.getUint32(pos + 6, true) + view.getUint32(pos + 10, true) * 2 ** 32,
      serial: view.getUint32(pos + 14, true),
      sequence: view.getUint32(pos + 18, true),
      crcOk: oggCrc(copy) === view.getUint32(pos + 22, true),
      packets,
    })
    pos = end
  }
  return pages
}

describe('Ogg Opus muxing (RFC 7845)', () => {
  it('computes the Ogg CRC-32 (poly 0x04c11db7, init 0, unreflected, no final xor)', () => {
    // CRC-32/POSIX of "123456789" is 0x765e7680 with a final xor; without it, its complement.
    expect(oggCrc(new TextEncoder().encode('123456789'))).toBe(0x89a1897f)
  })

  it('agrees with the CRCs of pages written by ffmpeg', async () => {
    const wav = getEncoder('wav').create({ sampleRate: 48000 })
    const input = new Uint8Array([...wav.push(speechLike(0.5, 48000)), ...wav.end()])
    const ogg = await ffmpegEncode(input, 'ogg', ['-c:a', 'libopus', '-b:a', '32k'])
    const pages = readPages(ogg)
    expect(pages.length).toBeGreaterThan(2)
    expect(pages.every((p) => p.crcOk)).toBe(true)
  })

  it('writes headers, granules, pre-skip and EOS that decoders rely on', async () => {
    const input = speechLike(1.234, 48000, 9)
    const session = getEncoder('opus').create({ sampleRate: 48000, bitrate: 32000 })
    const chunks = irregularBlocks(input, 11, 2400).map((b) => session.push(b))
    chunks.push(session.end())
    const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
    chunks.reduce((offset, c) => (bytes.set(c, offset), offset + c.length), 0)
    const pages = readPages(bytes)

    expect(pages.every((p) => p.crcOk)).toBe(true)
    expect(pages.map((p) => p.sequence)).toEqual(pages.map((_, i) => i))
    expect(new Set(pages.map((p) => p.serial)).size).toBe(1)
    const [head, tags, ...audio] = pages
    expect(head!.flags).toBe(0x02)
    expect(head!.packets).toHaveLength(1)
    const opusHead = head!.packets[0]!
    expect(new TextDecoder().decode(opusHead.subarray(0, 8))).toBe('OpusHead')
    expect(opusHead[8]).toBe(1) // version
    expect(opusHead[9]).toBe(1) // channels
    const preSkip = opusHead[10]! | (opusHead[11]! << 8)
    expect(preSkip).toBe(312)
    expect(tags!.packets).toHaveLength(1)
    expect(new TextDecoder().decode(tags!.packets[0]!.subarray(0, 8))).toBe('OpusTags')
    expect(head!.granule).toBe(0)
    expect(tags!.granule).toBe(0)

    // Audio pages: 960 samples per 20 ms packet, only the last page is EOS and ends at pre-skip + input.
    let packets = 0
    for (const [i, page] of audio.entries()) {
      packets += page.packets.length
      const last = i === audio.length - 1
      expect(page.flags).toBe(last ? 0x04 : 0)
      expect(page.granule).toBe(last ? preSkip + input.length : packets * 960)
    }
    expect(packets).toBe(Math.ceil((preSkip + input.length) / 960))
    // Pages stay small while streaming so bytes can leave early.
    expect(Math.max(...audio.map((p) => p.packets.length))).toBeLessThanOrEqual(10)

    const decoded = await ffmpegDecode(bytes)
    expect(decoded.length).toBe(input.length)
  })

  it('ends cleanly with no audio at all', async () => {
    const bytes = getEncoder('opus').create({ sampleRate: 48000 }).end()
    const pages = readPages(bytes)
    expect(pages.at(-1)!.flags).toBe(0x04)
    expect(pages.at(-1)!.granule).toBe(312)
    expect((await ffmpegDecode(bytes)).length).toBe(0)
  })

  it('keeps concurrent sessions independent', async () => {
    const a = speechLike(0.5, 48000, 1)
    const b = speechLike(0.5, 48000, 2)
    const solo = getEncoder('opus').create({ sampleRate: 48000 })
    const soloBytes = [solo.push(a), solo.end()]
    const s1 = getEncoder('opus').create({ sampleRate: 48000 })
    const s2 = getEncoder('opus').create({ sampleRate: 48000 })
    const out1: Uint8Array[] = []
    for (const [x, y] of irregularBlocks(a, 3, 960).map((block, i) => [block, b.subarray(i * 10, i * 10 + 10)] as const)) {
      out1.push(s1.push(x))
      s2.push(y)
    }
    out1.push(s1.end())
    s2.end()
    const join = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts))
    const [p, q] = await Promise.all([ffmpegDecode(join(soloBytes)), ffmpegDecode(join(out1))])
    expect(p).toEqual(q)
  })
})
