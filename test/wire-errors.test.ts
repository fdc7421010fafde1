import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { FastifyError } from 'fastify'
import { describe, expect, it } from 'vitest'
import { fishErrorBody, fishLiveErrorMessage, fromFastifyError } from '../src/api/error-wire.js'
import { openAiErrorBody, openAiStatus } from '../src/api/openai-error-wire.js'
import { wyomingErrorEvent } from '../src/api/wyoming/error-event.js'
import { decodeAudio, inspectAudio } from '../src/audio/decode.js'
import { ERROR_CODES, invalidField, SpeechError } from '../src/errors.js'
import { nothingToSpeak, voiceSaidNothing } from '../src/services/tts/nothing-to-speak.js'
import { readSsml } from '../src/text/index.js'

/**
 * Every kind of 422 Parla raises, made by the code that raises it, through each surface's one mapper: the Fish
 * list naming the field, OpenAI's 400 with `param`, the live socket's `finish` message, Wyoming's error event.
 */
const raised = (run: () => unknown): SpeechError => {
  try {
    run()
  } catch (err) {
    if (err instanceof SpeechError) return err
    throw err
  }
  throw new Error('nothing was raised')
}
const rejected = async (run: () => Promise<unknown>): Promise<SpeechError> => {
  const err = await run().then(() => undefined, (e: unknown) => e)
  if (err instanceof SpeechError) return err
  throw new Error(`not a SpeechError: ${String(err)}`)
}
const ajvError = (context: string, errors: object[]): FastifyError =>
  Object.assign(new Error('validation'), { code: 'FST_ERR_VALIDATION', statusCode: 400, validation: errors, validationContext: context }) as unknown as FastifyError

/** [what, the error, the field it must name]. */
async function validationErrors(): Promise<[string, SpeechError, string[]][]> {
  const wav = new Uint8Array(44 + 3200)
  wav.set(Buffer.from('RIFF'), 0)
  return [
    ['blank text (fish/tts.ts)', new SpeechError('unusable_input', 'text is empty; send the text to speak', { field: ['body', 'text'], type: 'string_too_short' }), ['body', 'text']],
    ['nothing to speak', nothingToSpeak(), ['body', 'text']],
    ['the voice said nothing', voiceSaidNothing('festival-slt'), ['body', 'text']],
    ['broken SSML', raised(() => readSsml('<speak>Hello <break time="soon"/></speak>')), ['body', 'text']],
    ['an empty audio file', await rejected(() => decodeAudio(new Uint8Array(0), { loc: ['body', 'audio'], name: 'empty.wav' })), ['body', 'audio']],
    ['a file that is not audio', raised(() => inspectAudio(new TextEncoder().encode('Meeting notes: call Bob.'), { loc: ['body', 'audio'], name: 'notes.txt' })), ['body', 'audio']],
    ['a damaged WAV', await rejected(() => decodeAudio(wav, { loc: ['body', 'voices', '0'] })), ['body', 'voices', '0']],
    ['audio too long', raised(() => inspectAudio(silentWav(3), { loc: ['body', 'audio'], maxSeconds: 2 })), ['body', 'audio']],
    ['a field check after parsing', invalidField(['body', 'references', '0', 'text'], 'needs its transcript'), ['body', 'references', '0', 'text']],
    ['a query field', invalidField(['query', 'page_size'], 'too big'), ['query', 'page_size']],
    ['a schema error', fromFastifyError(ajvError('body', [{ keyword: 'type', instancePath: '/prosody/speed', params: { type: 'number' }, message: 'must be number' }])), ['body', 'prosody', 'speed']],
    ['a missing field', fromFastifyError(ajvError('body', [{ keyword: 'required', instancePath: '', params: { missingProperty: 'text' }, message: "must have required property 'text'" }])), ['body', 'text']],
    ['unusable input with no field given', new SpeechError('unusable_input', 'the request cannot be used'), ['body']],
  ]
}

/** A WAV header for `seconds` of 16 kHz mono silence (inspection reads the header only). */
function silentWav(seconds: number): Uint8Array {
  const dataBytes = seconds * 16_000 * 2
  const b = Buffer.alloc(44 + dataBytes)
  b.write('RIFF', 0)
  b.writeUInt32LE(36 + dataBytes, 4)
  b.write('WAVEfmt ', 8)
  b.writeUInt32LE(16, 16)
  b.writeUInt16LE(1, 20)
  b.writeUInt16LE(1, 22)
  b.writeUInt32LE(16_000, 24)
  b.writeUInt32LE(32_000, 28)
  b.writeUInt16LE(2, 32)
  b.writeUInt16LE(16, 34)
  b.write('data', 36)
  b.writeUInt32LE(dataBytes, 40)
  return b
}

const ISSUE_KEYS = ['ctx', 'in', 'loc', 'msg', 'type']

describe('every validation error, on every surface', async () => {
  const errors = await validationErrors()

  it.each(errors)('%s', (_what, e, field) => {
    expect(e.status).toBe(422)
    // Fish: the spec's list, naming the field.
    const fish = fishErrorBody(e) as Record<string, unknown>[]
    expect(Array.isArray(fish) && fish.length).toBeGreaterThan(0)
    for (const issue of fish) {
      expect(Object.keys(issue).every((k) => ISSUE_KEYS.includes(k))).toBe(true)
      expect(typeof issue.type === 'string' && typeof issue.msg === 'string' && issue.msg !== '').toBe(true)
      expect(issue.in).toBe((issue.loc as string[])[0] === 'query' ? 'query' : 'body')
    }
    expect(fish[0]!.loc).toEqual(field)
    // OpenAI: a 400 naming the field in `param`, with the message as it is.
    const openai = openAiErrorBody(e)
    expect(openAiStatus(e)).toBe(400)
    expect(openai.error).toMatchObject({ type: 'invalid_request_error', param: field.slice(1).join('.') || null })
    expect(openai.error.message).toContain(String(fish[0]!.msg).slice(0, 20))
    // The live socket's `finish` and Wyoming's `error` event carry the message, never the server-fault text.
    expect(fishLiveErrorMessage(e)).toContain(String(fish[0]!.msg).slice(0, 20))
    expect(wyomingErrorEvent(e)).toEqual({ text: expect.stringContaining(String(fish[0]!.msg).slice(0, 20)), code: e.code })
  })

  it('every other status keeps {status, message} on Fish, and its own status on OpenAI', () => {
    const others = (Object.keys(ERROR_CODES) as (keyof typeof ERROR_CODES)[]).filter((code) => ERROR_CODES[code] !== 422)
    for (const code of others) {
      const e = new SpeechError(code, `because of ${code}`, code === 'engine_busy' ? { retryAfterSec: 2 } : {})
      expect(e.issues).toEqual([])
      const fault = ERROR_CODES[code] >= 500 && code !== 'engine_busy'
      expect(fishErrorBody(e), code).toEqual({ status: ERROR_CODES[code], message: fault ? 'Internal server error' : `because of ${code}` })
      expect(openAiStatus(e), code).toBe(ERROR_CODES[code])
    }
  })
})

describe('every place in src that raises a 422 by hand names its field', () => {
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') ? [join(dir, d.name)] : [])
  const root = join(import.meta.dirname, '..', 'src')

  it('new SpeechError(422 code, …) passes `field` or `issues`', () => {
    const codes = (Object.keys(ERROR_CODES) as (keyof typeof ERROR_CODES)[]).filter((c) => ERROR_CODES[c] === 422)
    const unnamed: string[] = []
    let sites = 0
    for (const file of files(root)) {
      const text = readFileSync(file, 'utf8')
      for (const code of codes) {
        for (let at = text.indexOf(`new SpeechError('${code}'`); at >= 0; at = text.indexOf(`new SpeechError('${code}'`, at + 1)) {
          sites++
          const call = callText(text, at + 'new SpeechError'.length)
          // The asr service re-raises a decoder's 422 with its issues; errors.ts builds issues itself.
          if (!/\b(field|issues)\b/.test(call)) unnamed.push(`${relative(root, file)}: ${call.slice(0, 120)}`)
        }
      }
    }
    expect(sites).toBeGreaterThan(5)
    expect(unnamed).toEqual([])
  })
})

/** The argument list of a call whose `(` is at `open`, balanced over parentheses. */
function callText(text: string, open: number): string {
  let depth = 0
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++
    else if (text[i] === ')' && --depth === 0) return text.slice(open, i + 1)
  }
  return text.slice(open)
}
