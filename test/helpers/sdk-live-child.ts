/**
 * Runs one official SDK's live WebSocket call in its own process, as a real client would (a client sharing
 * the server's event loop reads late, and npm fish-audio-sdk then drops messages that arrive together).
 * Usage: tsx sdk-live-child.ts <fish-audio|fish-audio-sdk> <baseUrl> <apiKey> <text> <gapMs>
 * Prints one JSON line: `{ audio: base64, chunks, error? }`.
 */
import { FishAudioClient, RealtimeEvents } from 'fish-audio'
import { TTSRequest, WebSocketSession } from 'fish-audio-sdk'

const [sdk, baseUrl, apiKey, text, gap] = process.argv.slice(2) as [string, string, string, string, string]

/** Text as an LLM would stream it: word by word, `gapMs` apart. */
async function* words(gapMs: number): AsyncGenerator<string> {
  for (const w of text.split(' ')) {
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs))
    yield `${w} `
  }
}

async function viaFishAudio(): Promise<Buffer[]> {
  const client = new FishAudioClient({ apiKey, baseUrl })
  const connection = await client.textToSpeech.convertRealtime({ text: '', format: 'mp3', latency: 'balanced' }, words(Number(gap)))
  const chunks: Buffer[] = []
  await new Promise<void>((resolve, reject) => {
    connection.on(RealtimeEvents.AUDIO_CHUNK, (audio) => chunks.push(Buffer.from(audio as Uint8Array)))
    connection.on(RealtimeEvents.ERROR, (err) => reject(err as Error))
    // finish/stop is CLOSE; the client then closes the socket (a second CLOSE).
    connection.on(RealtimeEvents.CLOSE, () => resolve())
  })
  connection.close()
  return chunks
}

async function viaFishAudioSdk(): Promise<Buffer[]> {
  const session = new WebSocketSession(apiKey, baseUrl)
  const chunks: Buffer[] = []
  for await (const chunk of session.tts(new TTSRequest('', { format: 'mp3' }), words(Number(gap)))) chunks.push(chunk)
  await session.close()
  return chunks
}

try {
  const chunks = sdk === 'fish-audio' ? await viaFishAudio() : await viaFishAudioSdk()
  console.log(JSON.stringify({ audio: Buffer.concat(chunks).toString('base64'), chunks: chunks.length }))
} catch (err) {
  console.log(JSON.stringify({ audio: '', chunks: 0, error: String((err as Error).message ?? err) }))
}
