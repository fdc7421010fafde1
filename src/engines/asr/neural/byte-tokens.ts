import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'

/**
 * Whisper's tokens are byte strings (the tokens file holds each in base64), and a character of a script like
 * Chinese is often split over two or three of them. sherpa-onnx-node returns each token as its own UTF-8
 * string, so a token holding part of a character comes back empty and the character is lost ("语音识别" →
 * "音别"). Parla therefore gives the runtime a copy of the tokens file in which each token is spelt as the
 * hexadecimal of its bytes (plain ASCII, which no conversion loses), and joins the bytes again here.
 */
export async function writeHexTokens(source: string, target: string): Promise<void> {
  const done = await stat(target).catch(() => null)
  const from = await stat(source)
  if (done && done.mtimeMs >= from.mtimeMs) return
  const lines = (await readFile(source, 'utf8')).split('\n').filter((l) => l.trim() !== '')
  const hex = lines.map((line) => {
    const [token, id] = line.trim().split(/\s+/)
    return `${Buffer.from(Buffer.from(token!, 'base64').toString('hex')).toString('base64')} ${id}`
  })
  await mkdir(dirname(target), { recursive: true })
  const part = `${target}.${process.pid}.part`
  await writeFile(part, `${hex.join('\n')}\n`)
  await rename(part, target)
}

/**
 * The runtime's tokens (hexadecimal byte strings) as text: the whole utterance, and one string per token in
 * which a character split over several tokens appears whole in the token that completes it.
 */
export function fromHexTokens(tokens: readonly string[]): { text: string; tokens: string[] } {
  const decoder = new TextDecoder('utf-8')
  const out = tokens.map((t) => decoder.decode(Buffer.from(t, 'hex'), { stream: true }))
  const rest = decoder.decode()
  if (rest && out.length > 0) out[out.length - 1] += rest
  return { text: out.join(''), tokens: out }
}
