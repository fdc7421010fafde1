// The microphone as 16-bit little-endian mono PCM, in pieces of a fixed duration, for a live socket. An
// AudioWorklet taps the samples at 24 kHz (OpenAI's realtime rate; the browser resamples the microphone), or at
// the device's own rate where the browser cannot (Firefox refuses a microphone in a context at another rate).

/** The worklet: hands every render quantum of the first input channel to the page. */
const TAP = `registerProcessor('parla-pcm-tap', class extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0] && inputs[0][0]
    if (channel) this.port.postMessage(channel.slice(0))
    return true
  }
})`

export interface MicPcm {
  readonly rate: number
  /** Stops the microphone; the samples not yet handed out come back as the last piece (maybe empty). */
  stop(): Promise<Uint8Array>
}

const toPcm16 = (samples: Float32Array): Uint8Array => {
  const out = new DataView(new ArrayBuffer(samples.length * 2))
  for (let i = 0; i < samples.length; i++) {
    const v = Math.max(-1, Math.min(1, samples[i]!))
    out.setInt16(i * 2, v < 0 ? v * 0x8000 : v * 0x7fff, true)
  }
  return new Uint8Array(out.buffer)
}

/** The rate asked for first; the highest rate Parla's live sockets take. */
const PREFERRED_RATE = 24_000
const MAX_RATE = 48_000

/** An AudioContext at `rate` with the microphone plugged in, or undefined if the browser refuses the pair. */
async function contextAt(stream: MediaStream, rate?: number): Promise<{ ctx: AudioContext; source: MediaStreamAudioSourceNode } | undefined> {
  const ctx = new AudioContext(rate ? { sampleRate: rate } : {})
  try {
    return { ctx, source: ctx.createMediaStreamSource(stream) }
  } catch {
    await ctx.close().catch(() => undefined)
    return undefined
  }
}

/** Starts capturing `stream`; `piece` gets each `pieceSec` of audio as PCM while it runs. */
export async function startMicPcm(stream: MediaStream, pieceSec: number, piece: (pcm: Uint8Array) => void): Promise<MicPcm> {
  let plugged = await contextAt(stream, PREFERRED_RATE)
  plugged ??= await contextAt(stream)
  if (plugged && plugged.ctx.sampleRate > MAX_RATE) {
    await plugged.ctx.close()
    plugged = await contextAt(stream, MAX_RATE)
  }
  if (!plugged) throw new Error('the browser cannot read the microphone at a rate Parla takes')
  const { ctx, source } = plugged
  const pieceSamples = Math.round(ctx.sampleRate * pieceSec)
  const url = URL.createObjectURL(new Blob([TAP], { type: 'text/javascript' }))
  try {
    await ctx.audioWorklet.addModule(url)
  } catch (err) {
    await ctx.close().catch(() => undefined)
    throw err
  } finally {
    URL.revokeObjectURL(url)
  }
  const tap = new AudioWorkletNode(ctx, 'parla-pcm-tap')
  // Connected to the output through silence, so the browser keeps pulling the tap; nothing is heard.
  const mute = ctx.createGain()
  mute.gain.value = 0
  source.connect(tap).connect(mute).connect(ctx.destination)
  let pending = new Float32Array(pieceSamples)
  let filled = 0
  tap.port.onmessage = (event: MessageEvent<Float32Array>) => {
    for (let data = event.data; data.length > 0;) {
      const n = Math.min(data.length, pieceSamples - filled)
      pending.set(data.subarray(0, n), filled)
      filled += n
      data = data.subarray(n)
      if (filled === pieceSamples) {
        piece(toPcm16(pending))
        pending = new Float32Array(pieceSamples)
        filled = 0
      }
    }
  }
  await ctx.resume()
  let stopped: Promise<Uint8Array> | undefined
  const stop = async () => {
    tap.port.onmessage = null
    source.disconnect()
    stream.getTracks().forEach((t) => t.stop())
    await ctx.close().catch(() => undefined)
    return toPcm16(pending.subarray(0, filled))
  }
  return { rate: ctx.sampleRate, stop: () => (stopped ??= stop()) }
}
