// Reads Server-Sent Events from a fetch response body (EventSource cannot POST or send an Authorization header).

export interface StreamingEvent {
  audio_base64: string
  content: string
  alignment: { segments: { text: string; start: number; end: number }[]; audio_duration: number } | null
  chunk_seq: number
  chunk_audio_offset_sec: number
}

export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamingEvent> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = message.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n')
        if (data) yield JSON.parse(data) as StreamingEvent
      }
    }
  } finally {
    reader.releaseLock()
  }
}

export function base64Bytes(text: string): Uint8Array {
  const binary = atob(text)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}
