import { FishAudioClient, FishAudioError } from 'fish-audio'
import { Session } from 'fish-audio-sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { waitForTraining } from './helpers/models.js'
import { PNG_1PX, voiceWav } from './helpers/voice-audio.js'

describe('official clients against a listening server', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer()
    await s.listen()
  })
  afterAll(async () => s.close())

  it('npm fish-audio: create from a WAV file, list by tag, read, rename, delete', async () => {
    const client = new FishAudioClient({ apiKey: s.alice, baseUrl: s.url })
    const wav = voiceWav({ seconds: 2 })
    const created = await client.voices.ivc.create({
      title: 'SDK voice',
      voices: [new File([wav], 'me.wav', { type: 'audio/wav' })],
      // Sent as ONE comma-joined field; with one voice it stays whole.
      texts: ['Hello, this is my voice'],
      tags: ['sdk', 'npm'],
      visibility: 'public',
      cover_image: new File([PNG_1PX], 'cover.png', { type: 'image/png' }),
      enhance_audio_quality: false,
    })
    expect(created).toMatchObject({ title: 'SDK voice', type: 'tts', train_mode: 'fast', state: 'created', tags: ['sdk', 'npm'], visibility: 'public' })
    expect(created.samples).toEqual([{ title: 'me', text: 'Hello, this is my voice', task_id: '', audio: `/model/${created._id}/samples/0` }])
    expect(created.cover_image).toBe(`/model/${created._id}/cover`)
    expect((await waitForTraining(s, s.asAlice, created._id)).state).toBe('trained')

    const byTag = await client.voices.search({ tag: 'npm', self: true, page_size: 5, sort_by: 'created_at' })
    expect(byTag.total).toBe(1)
    expect(byTag.items.map((m) => m._id)).toEqual([created._id])
    expect((await client.voices.search({ tag: ['nothing', 'sdk'] })).items.map((m) => m._id)).toEqual([created._id])
    expect((await client.voices.search({ tag: 'nothing' })).total).toBe(0)

    const read = await client.voices.get(created._id)
    expect(read).toMatchObject({ _id: created._id, title: 'SDK voice', state: 'trained', author: { _id: s.aliceAccount, nickname: 'alice', avatar: '' } })

    expect(await client.voices.update(created._id, { title: 'Renamed', tags: ['x', 'y'] })).toEqual({ status: 'ok' })
    expect(await client.voices.get(created._id)).toMatchObject({ title: 'Renamed', tags: ['x', 'y'] })

    expect(await client.voices.delete(created._id)).toEqual({ status: 'ok' })
    const gone = await client.voices.get(created._id).catch((e: unknown) => e)
    expect(gone).toBeInstanceOf(FishAudioError)
    expect((gone as FishAudioError).statusCode).toBe(404)
    expect((gone as FishAudioError).body).toEqual({ status: 404, message: `Voice model '${created._id}' not found` })
  })

  it('npm fish-audio: a non-audio upload comes back as a 422 naming the file', async () => {
    const client = new FishAudioClient({ apiKey: s.alice, baseUrl: s.url })
    const e = await client.voices.ivc
      .create({ title: 'bad', voices: [new File([Buffer.from('not audio at all, only text')], 'notes.txt')] })
      .catch((err: unknown) => err as FishAudioError)
    expect((e as FishAudioError).statusCode).toBe(422)
    expect((e as FishAudioError).body).toEqual([
      { loc: ['body', 'voices', '0'], type: 'value_error', msg: "file 'notes.txt' is not audio: it looks like plain text; send WAV, MP3, Ogg Opus/Vorbis, FLAC or M4A", in: 'body' },
    ])
  })

  it('npm fish-audio-sdk (Session): create, list with tag[], read, rename, delete', async () => {
    const session = new Session(s.bob, s.url)
    try {
      const wav = Buffer.from(voiceWav({ seconds: 1.5 }))
      const created = await session.createModel({ title: 'legacy', voices: [wav, wav], texts: ['first, with a comma', 'second'], tags: ['a', 'b'] })
      expect(created).toMatchObject({ _id: created.id, title: 'legacy', visibility: 'private', train_mode: 'fast', tags: ['a', 'b'] })
      expect(created.samples.map((x: { title: string; text: string }) => [x.title, x.text])).toEqual([['voice_0', 'first, with a comma'], ['voice_1', 'second']])

      const listed = await session.listModels({ tag: ['a', 'zzz'], self: true, pageSize: 10, pageNumber: 1, sortBy: 'score' })
      expect(listed.total).toBe(1)
      expect(listed.items[0]).toMatchObject({ id: created.id, title: 'legacy' })
      expect((await session.listModels({ self: false })).items.map((m: { id: string }) => m.id)).not.toContain(created.id)

      expect(await session.getModel(created.id)).toMatchObject({ id: created.id, title: 'legacy', author: { nickname: 'bob' } })
      await session.updateModel(created.id, { title: 'legacy renamed', tags: ['c'], visibility: 'unlist' })
      expect(await session.getModel(created.id)).toMatchObject({ title: 'legacy renamed', tags: ['c'], visibility: 'unlist' })

      await session.deleteModel(created.id)
      const gone = await session.getModel(created.id).catch((e: unknown) => e as { status: number; message: string })
      // HttpCodeError(status, body.message) → message "<status> <message>"
      expect(gone).toMatchObject({ name: 'HttpCodeError', status: 404, message: `404 Voice model '${created.id}' not found` })
    } finally {
      session.close()
    }
  })
})
