import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import { SpeechError } from '../../errors.js'
import { SPEECH_MODELS } from './model-routing.js'
import type { VoicePicker } from './voices.js'

/** Transcription model names clients send; all are Parla's recogniser (one model per language). */
export const TRANSCRIPTION_MODELS = ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe', 'pocketsphinx']

/** Fixed, so listings are stable across restarts (the day this surface was added). */
const CREATED = 1_795_392_000

interface ModelObject { id: string; object: 'model'; created: number; owned_by: string }

const modelObject = (id: string): ModelObject => ({ id, object: 'model', created: CREATED, owned_by: 'parla' })

/**
 * `GET /v1/models` (OpenAI list), `GET /v1/models/:id`, and what voice pickers call: `GET /v1/audio/voices`
 * (`{voices: [{id, name, languages}]}`, the shape Open WebUI reads) and `GET /v1/audio/models` (`{models: [{id}]}`).
 */
export async function catalogRoutes(app: FastifyInstance, { deps, voices }: { deps: Deps; voices: VoicePicker }): Promise<void> {
  const all = () => [...new Set([...SPEECH_MODELS, ...deps.speech.engines.ids, ...TRANSCRIPTION_MODELS])]
  const tags = ['openai']
  app.get('/v1/models', { schema: { summary: 'OpenAI model list: speech and transcription models', tags } }, async () => ({ object: 'list', data: all().map(modelObject) }))
  app.get<{ Params: { id: string } }>('/v1/models/:id', { schema: { summary: 'One model', tags } }, async (request) => {
    if (!all().includes(request.params.id)) throw new SpeechError('not_found', `The model '${request.params.id}' does not exist; list models with GET /v1/models`)
    return modelObject(request.params.id)
  })
  app.get('/v1/audio/models', { schema: { summary: 'Speech models, for voice pickers', tags } }, async () => ({ models: [...SPEECH_MODELS, ...deps.speech.engines.ids].map((id) => ({ id })) }))
  app.get('/v1/audio/voices', { schema: { summary: 'Voices: OpenAI names (mapped) and every voice model you can use', tags } }, async (request) => ({ voices: await voices.list(request.principal) }))
}
