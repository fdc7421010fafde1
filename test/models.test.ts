import { encode } from '@msgpack/msgpack'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DIALECTS, startTestServer, type TestServer } from './helpers/app.js'
import { createModel, createMultipart, getJson, waitForTraining } from './helpers/models.js'
import { noiseWav, PNG_1PX, silentWav, voiceSamples, voiceWav, wavBytes } from './helpers/voice-audio.js'

const ENTITY_KEYS = [
  '_id', 'author', 'cover_image', 'created_at', 'default_text', 'description', 'dmca_taken_down', 'languages',
  'like_count', 'lock_visibility', 'liked', 'mark_count', 'marked', 'quality', 'samples', 'shared_count', 'source',
  'state', 'state_reason', 'tags', 'task_count', 'title', 'train_mode', 'type', 'unliked', 'updated_at', 'visibility',
].sort()

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe.each(DIALECTS)('%s: /model: entity, create encodings, training, stored files', (dialect) => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer({}, {}, dialect)
  })
  afterAll(async () => s.close())

  it('answers create with 201 and every field of the Voice model table, with the spec defaults', async () => {
    const wav = voiceWav({ seconds: 2, sampleRate: 22050 })
    const res = await createMultipart(s, s.asAlice, [
      { name: 'type', value: 'tts' },
      { name: 'title', value: 'Narrator' },
      { name: 'train_mode', value: 'full' },
      { name: 'voices', filename: 'narrator.wav', data: wav, type: 'audio/wav' },
    ])
    expect(res.statusCode).toBe(201)
    const m = res.json()
    expect(Object.keys(m).sort()).toEqual(ENTITY_KEYS)
    expect(m._id).toMatch(/^[0-9a-f]{32}$/)
    expect(m).toMatchObject({
      type: 'tts',
      title: 'Narrator',
      description: '',
      cover_image: '',
      train_mode: 'fast', // stored as full, always serialized as fast (Python SDK)
      state: 'created',
      state_reason: '',
      tags: [],
      languages: [],
      visibility: 'private',
      lock_visibility: false,
      dmca_taken_down: false,
      default_text: '',
      source: null,
      like_count: 0,
      mark_count: 0,
      shared_count: 0,
      task_count: 0,
      unliked: false,
      liked: false,
      marked: false,
      author: { _id: s.aliceAccount, nickname: 'alice', avatar: '' },
    })
    expect(m.created_at).toMatch(ISO)
    expect(m.updated_at).toBe(m.created_at)
    expect(m.samples).toEqual([{ title: 'narrator', text: '', task_id: '', audio: `/model/${m._id}/samples/0` }])
    expect(m.quality).toEqual({
      created_at: m.created_at,
      updated_at: m.created_at,
      audios: [
        {
          filename: 'narrator.wav',
          duration_ms: 2000,
          language: 'unknown',
          quality: { sample_rate: 22050, channels: 1, format: 'wav' },
          quality_passed: false,
          quality_reason: '',
        },
      ],
    })
    const row = await s.deps.db.selectFrom('models').select(['train_mode', 'enhance_audio_quality']).where('id', '=', m._id).executeTakeFirstOrThrow()
    expect(row).toEqual({ train_mode: 'full', enhance_audio_quality: 1 })
  })

  it('trains: measures each sample, passes the good one, records why the others failed', async () => {
    const created = await createModel(s, s.asAlice, {
      voices: [voiceWav({ seconds: 2 }), noiseWav(2), voiceWav({ seconds: 2, amplitude: 1.6 }), voiceWav({ seconds: 2, channels: 2, sampleRate: 44100 })],
      texts: ['This is my clear speaking voice for the model.', '', '', ''],
    })
    const m = await waitForTraining(s, s.asAlice, created._id)
    expect(m.state).toBe('trained')
    expect(m.state_reason).toBe('')
    expect(m.updated_at > created.updated_at).toBe(true)
    expect(m.quality.updated_at > m.quality.created_at).toBe(true)
    const [good, noise, clipped, stereo] = m.quality.audios
    expect(good.quality_passed).toBe(true)
    expect(good.quality_reason).toBe('')
    expect(good.language).toBe('en')
    expect(good.quality).toMatchObject({ sample_rate: 16000, channels: 1, format: 'wav', peak: 0.5, clipping_ratio: 0 })
    expect(good.quality.rms_dbfs).toBeGreaterThan(-30)
    expect(good.quality.snr_db).toBeGreaterThan(30)
    expect(noise.quality_passed).toBe(false)
    expect(noise.quality_reason).toMatch(/^too noisy: speech is only [\d.]+ dB above the background \(need 10 dB\)$/)
    expect(noise.language).toBe('unknown')
    expect(clipped.quality_passed).toBe(false)
    expect(clipped.quality_reason).toMatch(/^clipped: [\d.]+% of samples at full scale \(limit 1%\)$/)
    expect(clipped.quality.clipping_ratio).toBeGreaterThan(0.01)
    expect(stereo).toMatchObject({ duration_ms: 2000, quality_passed: true, quality: { channels: 2, sample_rate: 44100 } })
    expect(m.languages).toEqual(['en'])
  })

  it('fails training with the reason when no sample passes', async () => {
    const created = await createModel(s, s.asAlice, { voices: [silentWav(2), noiseWav(1.5)] })
    const m = await waitForTraining(s, s.asAlice, created._id)
    expect(m.state).toBe('failed')
    expect(m.state_reason).toBe(
      'No voice sample passed the quality check (voice-0.wav: too quiet: level -120 dBFS is below -45 dBFS; ' +
        'mostly silence: 100% of the audio is silent (limit 80%); voice-1.wav: ' +
        `${m.quality.audios[1].quality_reason}); upload a clear recording of one speaker`,
    )
    expect(m.quality.audios.map((a: any) => a.quality_passed)).toEqual([false, false])
  })

  it('accepts JSON (base64), MessagePack (bin), url-encoded and multipart with the same result', async () => {
    const wav = voiceWav({ seconds: 1.5 })
    const json = await s.app.inject({
      method: 'POST', url: '/model', headers: { ...s.asAlice, 'content-type': 'application/json' },
      payload: { title: 'json', voices: [`data:audio/wav;base64,${Buffer.from(wav).toString('base64')}`], tags: 'a, b', visibility: 'public', enhance_audio_quality: false },
    })
    const msgpack = await s.app.inject({
      method: 'POST', url: '/model', headers: { ...s.asAlice, 'content-type': 'application/msgpack' },
      payload: Buffer.from(encode({ title: 'msgpack', voices: [wav], tags: ['a', 'b'], visibility: 'public', type: 'svc', texts: null, description: null })),
    })
    const form = await s.app.inject({
      method: 'POST', url: '/model', headers: { ...s.asAlice, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `title=form&visibility=public&tags=a&tags=b&enhance_audio_quality=false&voices=${encodeURIComponent(Buffer.from(wav).toString('base64'))}`,
    })
    const buffer = await s.app.inject({
      method: 'POST', url: '/model', headers: { ...s.asAlice, 'content-type': 'application/json' },
      payload: { title: 'buffer-json', voices: [Buffer.from(wav).toJSON()], tags: ['a', 'b'], visibility: 'public' },
    })
    for (const [res, title] of [[json, 'json'], [msgpack, 'msgpack'], [form, 'form'], [buffer, 'buffer-json']] as const) {
      expect(res.statusCode, res.body).toBe(201)
      expect(res.json()).toMatchObject({ title, tags: ['a', 'b'], visibility: 'public', state: 'created' })
      expect(res.json().quality.audios[0]).toMatchObject({ duration_ms: 1500, quality: { format: 'wav' } })
    }
    expect(msgpack.json().type).toBe('svc')
    // bin values are views into the request body; the stored sample must be an intact copy.
    for (const res of [msgpack, json]) {
      const trained = await waitForTraining(s, s.asAlice, res.json()._id)
      expect(trained.state).toBe('trained')
      const audio = await s.app.inject({ method: 'GET', url: trained.samples[0].audio, headers: s.asAlice })
      expect(Buffer.compare(audio.rawPayload, Buffer.from(wav))).toBe(0)
    }
    const rows = await s.deps.db.selectFrom('models').select(['title', 'enhance_audio_quality']).where('title', 'in', ['json', 'form', 'msgpack']).orderBy('title').execute()
    expect(rows).toEqual([{ title: 'form', enhance_audio_quality: 0 }, { title: 'json', enhance_audio_quality: 0 }, { title: 'msgpack', enhance_audio_quality: 1 }])
  })

  it('splits a comma-joined texts field only when the pieces match the voices', async () => {
    const v = () => ({ name: 'voices', filename: 'v.wav', data: voiceWav({ seconds: 1.2 }) })
    const one = await createMultipart(s, s.asAlice, [{ name: 'title', value: 't1' }, { name: 'texts', value: 'Hello, world, again' }, v()])
    expect(one.json().samples.map((x: any) => x.text)).toEqual(['Hello, world, again'])
    const two = await createMultipart(s, s.asAlice, [{ name: 'title', value: 't2' }, { name: 'texts', value: 'First one,Second one' }, v(), v()])
    expect(two.json().samples.map((x: any) => x.text)).toEqual(['First one', 'Second one'])
    const mismatch = await createMultipart(s, s.asAlice, [{ name: 'title', value: 't3' }, { name: 'texts', value: 'a, b, c' }, v(), v()])
    expect(mismatch.json().samples.map((x: any) => x.text)).toEqual(['a, b, c', ''])
    const repeated = await createMultipart(s, s.asAlice, [{ name: 'title', value: 't4' }, { name: 'texts', value: 'one, two' }, { name: 'texts', value: 'three' }, v(), v()])
    expect(repeated.json().samples.map((x: any) => x.text)).toEqual(['one, two', 'three'])
    const tags = await createMultipart(s, s.asAlice, [{ name: 'title', value: 't5' }, { name: 'tags', value: 'x, y,,X' }, { name: 'tags', value: 'z' }, v()])
    expect(tags.json().tags).toEqual(['x', 'y', 'z'])
  })

  it('serves the stored samples and cover image to whoever may read the model', async () => {
    const wav = voiceWav({ seconds: 1.5 })
    const res = await createMultipart(s, s.asAlice, [
      { name: 'title', value: 'With cover' },
      { name: 'visibility', value: 'unlist' },
      { name: 'voices', filename: 'a.wav', data: wav, type: 'audio/wav' },
      { name: 'cover_image', filename: 'c.png', data: PNG_1PX, type: 'image/png' },
    ])
    const m = res.json()
    expect(m.cover_image).toBe(`/model/${m._id}/cover`)
    for (const who of [s.asAlice, s.asBob]) {
      const audio = await s.app.inject({ method: 'GET', url: m.samples[0].audio, headers: who })
      expect(audio.statusCode).toBe(200)
      expect(audio.headers['content-type']).toBe('audio/wav')
      expect(Buffer.compare(audio.rawPayload, Buffer.from(wav))).toBe(0)
      const cover = await s.app.inject({ method: 'GET', url: m.cover_image, headers: who })
      expect(cover.statusCode).toBe(200)
      expect(cover.headers['content-type']).toBe('image/png')
      expect(Buffer.compare(cover.rawPayload, PNG_1PX)).toBe(0)
    }
    expect(await getJson(s, s.asAlice, `/model/${m._id}/samples/1`)).toEqual({ status: 404, body: { status: 404, message: `Voice model '${m._id}' has no sample 1; it has 1` } })
    const plain = await createModel(s, s.asAlice)
    expect(await getJson(s, s.asAlice, `/model/${plain._id}/cover`)).toEqual({ status: 404, body: { status: 404, message: `Voice model '${plain._id}' has no cover image` } })
  })

  it('PATCH changes fields, replaces or removes the cover, and answers {status:"ok"}', async () => {
    const m = await createModel(s, s.asAlice, { tags: ['old'] })
    const patch = await s.app.inject({
      method: 'PATCH', url: `/model/${m._id}`, headers: { ...s.asAlice, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'title=New%20title&description=About&visibility=public&tags=n1&tags=n2',
    })
    expect(patch.statusCode).toBe(200)
    expect(patch.json()).toEqual({ status: 'ok' })
    const after = (await getJson(s, s.asAlice, `/model/${m._id}`)).body
    expect(after).toMatchObject({ title: 'New title', description: 'About', visibility: 'public', tags: ['n1', 'n2'] })
    expect(after.updated_at > m.updated_at).toBe(true)
    expect((await getJson(s, s.asAlice, '/model?tag=old&self=true')).body.total).toBe(0)
    expect((await getJson(s, s.asAlice, '/model?tag=n2&self=true')).body.items.map((x: any) => x._id)).toEqual([m._id])

    const withCover = await s.app.inject({
      method: 'PATCH', url: `/model/${m._id}`, headers: { ...s.asAlice, 'content-type': 'application/json' },
      payload: { cover_image: PNG_1PX.toString('base64'), tags: '' },
    })
    expect(withCover.json()).toEqual({ status: 'ok' })
    const covered = (await getJson(s, s.asAlice, `/model/${m._id}`)).body
    expect(covered.cover_image).toBe(`/model/${m._id}/cover`)
    expect(covered.tags).toEqual([])
    const keys = await s.deps.blobs.list(`models/${m._id}/`)
    expect(keys.filter((k) => k.includes('/cover-'))).toHaveLength(1)

    const removed = await s.app.inject({ method: 'PATCH', url: `/model/${m._id}`, headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { cover_image: '' } })
    expect(removed.json()).toEqual({ status: 'ok' })
    expect((await getJson(s, s.asAlice, `/model/${m._id}`)).body.cover_image).toBe('')
    expect((await s.deps.blobs.list(`models/${m._id}/`)).filter((k) => k.includes('/cover-'))).toEqual([])
  })

  it('DELETE removes the row, its index rows and every blob', async () => {
    const res = await createMultipart(s, s.asAlice, [
      { name: 'title', value: 'Doomed' },
      { name: 'tags', value: 'bye' },
      { name: 'voices', filename: 'a.wav', data: voiceWav({ seconds: 1.2 }) },
      { name: 'voices', filename: 'b.wav', data: wavBytes(voiceSamples({ seconds: 1.2 })) },
      { name: 'cover_image', filename: 'c.png', data: PNG_1PX },
    ])
    const id = res.json()._id
    expect(await s.deps.blobs.list(`models/${id}/`)).toHaveLength(3)
    await s.deps.models.training.idle()
    const del = await s.app.inject({ method: 'DELETE', url: `/model/${id}`, headers: s.asAlice })
    expect(del.statusCode).toBe(200)
    expect(del.json()).toEqual({ status: 'ok' })
    expect(await s.deps.blobs.list(`models/${id}/`)).toEqual([])
    expect(await s.deps.db.selectFrom('model_blobs').select('key').where('model_id', '=', id).execute()).toEqual([])
    expect(await s.deps.db.selectFrom('model_tags').select('tag').where('model_id', '=', id).execute()).toEqual([])
    expect(await getJson(s, s.asAlice, `/model/${id}`)).toEqual({ status: 404, body: { status: 404, message: `Voice model '${id}' not found` } })
    const again = await s.app.inject({ method: 'DELETE', url: `/model/${id}`, headers: s.asAlice })
    expect(again.statusCode).toBe(404)
  })

  it('describes the /model routes in the OpenAPI document', async () => {
    const doc = (await s.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    expect(Object.keys(doc.paths['/model']).sort()).toEqual(['get', 'post'])
    expect(Object.keys(doc.paths['/model/{id}']).sort()).toEqual(['delete', 'get', 'patch'])
    expect(Object.keys(doc.paths['/model/{id}/samples/{n}'])).toEqual(['get'])
    expect(Object.keys(doc.paths['/model/{id}/cover'])).toEqual(['get'])
    const post = doc.paths['/model'].post
    expect(Object.keys(post.requestBody.content).sort()).toEqual(['application/json', 'application/msgpack', 'application/x-www-form-urlencoded', 'multipart/form-data'])
    expect(post.requestBody.content['multipart/form-data'].schema.properties.voices.items).toEqual({ type: 'string', format: 'binary' })
    const entity = post.responses['201'].content['application/json'].schema
    expect(Object.keys(entity.properties).sort()).toEqual(ENTITY_KEYS)
    const params = doc.paths['/model'].get.parameters.map((p: any) => p.name).sort()
    expect(params).toEqual(['author_id', 'language', 'language[]', 'page_number', 'page_size', 'self', 'sort_by', 'tag', 'tag[]', 'title', 'title_language', 'title_language[]'])
    expect(doc.paths['/model/{id}'].delete.responses['422'].content['application/json'].schema.type).toBe('array')
  })
})
