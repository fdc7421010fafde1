// A WAV file from 16-bit mono samples, for downloading what was heard.

export function wavBlob(pieces: Int16Array<ArrayBuffer>[], rate: number): Blob {
  const samples = pieces.reduce((n, p) => n + p.length, 0)
  const header = new DataView(new ArrayBuffer(44))
  const text = (at: number, s: string) => [...s].forEach((ch, i) => header.setUint8(at + i, ch.charCodeAt(0)))
  text(0, 'RIFF')
  header.setUint32(4, 36 + samples * 2, true)
  text(8, 'WAVE')
  text(12, 'fmt ')
  header.setUint32(16, 16, true)
  header.setUint16(20, 1, true)
  header.setUint16(22, 1, true)
  header.setUint32(24, rate, true)
  header.setUint32(28, rate * 2, true)
  header.setUint16(32, 2, true)
  header.setUint16(34, 16, true)
  text(36, 'data')
  header.setUint32(40, samples * 2, true)
  // Int16Array is little-endian on every platform browsers run on.
  return new Blob([header, ...pieces], { type: 'audio/wav' })
}

export function pcmBlob(pieces: Int16Array<ArrayBuffer>[]): Blob {
  return new Blob(pieces, { type: 'application/octet-stream' })
}
