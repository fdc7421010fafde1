import { randomInt } from 'node:crypto'
import { MAX_SEGMENTS, PAGE_BOS, PAGE_EOS, oggPage, segmentsFor } from './ogg-page.js'

/**
 * Ogg encapsulation of one Opus stream (RFC 7845). Granule positions count 48 kHz samples from the start of
 * decoder output, pre-skip included; the last page's granule is pre-skip + real samples, so decoders trim
 * the padding of the final frame.
 */
export interface OggOpusMuxer {
  /** The two header pages (OpusHead, OpusTags); each must be alone on its page. */
  headers(): Uint8Array
  /** Queues a packet of `samples` 48 kHz samples; returns pages that had to be closed to make room. */
  add(packet: Uint8Array, samples: number): Uint8Array[]
  readonly pendingPackets: number
  readonly audioPagesWritten: number
  /** Closes the current page if it has packets; returns an empty array otherwise. */
  flush(): Uint8Array
  /** Closes the stream: the last page, flagged EOS, ends at `finalGranule`. */
  finish(finalGranule: number): Uint8Array
}

/** Packets per page at most: 200 ms of audio, so a page never holds back much. */
const MAX_PACKETS_PER_PAGE = 10

function opusHead(preSkip: number, inputRate: number): Uint8Array {
  const head = new Uint8Array(19)
  const view = new DataView(head.buffer)
  head.set(new TextEncoder().encode('OpusHead'))
  head[8] = 1 // version
  head[9] = 1 // channels
  view.setUint16(10, preSkip, true)
  view.setUint32(12, inputRate, true)
  view.setInt16(16, 0, true) // output gain
  head[18] = 0 // mapping family 0: mono or stereo, no table
  return head
}

function opusTags(vendor: string): Uint8Array {
  const vendorBytes = new TextEncoder().encode(vendor)
  const tags = new Uint8Array(8 + 4 + vendorBytes.length + 4)
  const view = new DataView(tags.buffer)
  tags.set(new TextEncoder().encode('OpusTags'))
  view.setUint32(8, vendorBytes.length, true)
  tags.set(vendorBytes, 12)
  view.setUint32(12 + vendorBytes.length, 0, true) // no user comments
  return tags
}

export function createOggOpusMuxer(preSkip: number, inputRate: number): OggOpusMuxer {
  const serial = randomInt(0, 0xffffffff)
  let sequence = 0
  let granule = 0
  let audioPages = 0
  let pending: Uint8Array[] = []
  let pendingSegments = 0

  const page = (flags: number, pageGranule: number, packets: readonly Uint8Array[]): Uint8Array =>
    oggPage({ flags, granule: pageGranule, serial, sequence: sequence++, packets })

  const closePage = (flags: number, pageGranule: number): Uint8Array => {
    const out = page(flags, pageGranule, pending)
    pending = []
    pendingSegments = 0
    audioPages++
    return out
  }

  return {
    headers: () => {
      const head = page(PAGE_BOS, 0, [opusHead(preSkip, inputRate)])
      const tags = page(0, 0, [opusTags('Parla (libopus via opusscript)')])
      const out = new Uint8Array(head.length + tags.length)
      out.set(head)
      out.set(tags, head.length)
      return out
    },
    add(packet, samples) {
      const closed: Uint8Array[] = []
      const segments = segmentsFor(packet.length)
      const full = pending.length >= MAX_PACKETS_PER_PAGE || pendingSegments + segments > MAX_SEGMENTS
      if (pending.length > 0 && full) {
        closed.push(closePage(0, granule))
      }
      pending.push(packet)
      pendingSegments += segments
      granule += samples
      return closed
    },
    get pendingPackets() {
      return pending.length
    },
    get audioPagesWritten() {
      return audioPages
    },
    flush: () => (pending.length > 0 ? closePage(0, granule) : new Uint8Array(0)),
    finish: (finalGranule) => closePage(PAGE_EOS, Math.min(finalGranule, granule)),
  }
}
