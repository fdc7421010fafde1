import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DIALECTS, startTestServer, type TestServer } from './helpers/app.js'
import { createModel, getJson } from './helpers/models.js'

/**
 * Models with fixed score / task_count / created_at, so every order is known. Each has a transcript, so its
 * language comes from text (French for all but A and B), not from recognizing the synthetic test voice.
 */
const FIXTURES = [
  { key: 'A', who: 'alice', title: 'Deep Narrator', visibility: 'public', tags: ['story', 'calm'], texts: ['Once upon a time there was a quiet storyteller.'], score: 5, tasks: 1, at: '2026-01-01T00:00:01.000Z' },
  { key: 'B', who: 'alice', title: 'Die freundliche Nachrichtensprecherin', visibility: 'public', tags: ['news'], texts: ['Guten Morgen, hier sind die Nachrichten des Tages.'], score: 9, tasks: 3, at: '2026-01-01T00:00:02.000Z' },
  { key: 'C', who: 'alice', title: 'narrator two', visibility: 'public', tags: ['Story'], texts: ['Bonjour à tous, voici les nouvelles du jour et la météo de demain.'], score: 5, tasks: 7, at: '2026-01-01T00:00:03.000Z' },
  { key: 'D', who: 'alice', title: 'Private narrator', visibility: 'private', tags: ['story'], texts: ['Bonjour à tous, voici les nouvelles du jour et la météo de demain.'], score: 50, tasks: 50, at: '2026-01-01T00:00:05.000Z' },
  { key: 'E', who: 'alice', title: 'Unlisted narrator', visibility: 'unlist', tags: ['story'], texts: ['Bonjour à tous, voici les nouvelles du jour et la météo de demain.'], score: 40, tasks: 40, at: '2026-01-01T00:00:06.000Z' },
  { key: 'H', who: 'alice', title: '100% real_voice', visibility: 'public', tags: [], texts: ['Bonjour à tous, voici les nouvelles du jour et la météo de demain.'], score: 0, tasks: 2, at: '2026-01-01T00:00:00.000Z' },
  { key: 'F', who: 'bob', title: "Bob's narrator", visibility: 'public', tags: ['calm'], texts: ['Bonjour à tous, voici les nouvelles du jour et la météo de demain.'], score: 1, tasks: 0, at: '2026-01-01T00:00:04.000Z' },
  { key: 'G', who: 'bob', title: 'Bob private', visibility: 'private', tags: ['calm'], texts: ['Bonjour à tous, voici les nouvelles du jour et la météo de demain.'], score: 99, tasks: 99, at: '2026-01-01T00:00:07.000Z' },
] as const

describe.each(DIALECTS)('%s: GET /model: filters, sorting, pagination', (dialect) => {
  let s: TestServer
  const ids = new Map<string, string>()
  const keyOf = new Map<string, string>()
  /** The fixture keys of a list answer, in order. */
  const list = async (query: string, as: 'alice' | 'bob' = 'alice') => {
    const { status, body } = await getJson(s, as === 'alice' ? s.asAlice : s.asBob, `/model${query}`)
    expect(status, JSON.stringify(body)).toBe(200)
    expect(Object.keys(body).sort()).toEqual(['items', 'total'])
    return { total: body.total as number, keys: (body.items as any[]).map((m) => keyOf.get(m._id)) }
  }

  beforeAll(async () => {
    s = await startTestServer({}, {}, dialect)
    for (const f of FIXTURES) {
      const m = await createModel(s, f.who === 'alice' ? s.asAlice : s.asBob, { title: f.title, visibility: f.visibility, tags: [...f.tags], texts: [...f.texts] })
      ids.set(f.key, m._id)
      keyOf.set(m._id, f.key)
      await s.deps.db.updateTable('models').set({ score: f.score, task_count: f.tasks, created_at: f.at }).where('id', '=', m._id).execute()
    }
    await s.deps.models.training.idle()
  })
  afterAll(async () => s.close())

  it('lists public models of every account, by score (ties: newer first), with defaults page_size 10', async () => {
    expect(await list('')).toEqual({ total: 5, keys: ['B', 'C', 'A', 'F', 'H'] })
    expect(await list('', 'bob')).toEqual({ total: 5, keys: ['B', 'C', 'A', 'F', 'H'] })
    expect(await list('?sort_by=score&self=false')).toEqual({ total: 5, keys: ['B', 'C', 'A', 'F', 'H'] })
  })

  it('sorts by task_count and created_at, descending', async () => {
    expect(await list('?sort_by=task_count')).toEqual({ total: 5, keys: ['C', 'B', 'H', 'A', 'F'] })
    expect(await list('?sort_by=created_at')).toEqual({ total: 5, keys: ['F', 'C', 'B', 'A', 'H'] })
  })

  it('breaks ties on created_at then id, so paging is stable', async () => {
    await s.deps.db.updateTable('models').set({ created_at: '2026-01-01T00:00:01.000Z' }).where('id', '=', ids.get('C')!).execute()
    const [a, c] = [ids.get('A')!, ids.get('C')!]
    const expected = a > c ? ['B', 'A', 'C', 'F', 'H'] : ['B', 'C', 'A', 'F', 'H']
    expect((await list('')).keys).toEqual(expected)
    const paged = []
    for (let p = 1; p <= 3; p++) paged.push(...(await list(`?page_size=2&page_number=${p}`)).keys)
    expect(paged).toEqual(expected)
    await s.deps.db.updateTable('models').set({ created_at: '2026-01-01T00:00:03.000Z' }).where('id', '=', c).execute()
  })

  it('filters by title: case-insensitive substring, % and _ literal', async () => {
    expect(await list('?title=NARRATOR')).toEqual({ total: 3, keys: ['C', 'A', 'F'] })
    expect(await list('?title=%25')).toEqual({ total: 1, keys: ['H'] })
    expect(await list('?title=_')).toEqual({ total: 1, keys: ['H'] })
    // As LIKE wildcards these would match "Narrator" / "Deep Narrator"; escaped they match nothing.
    expect(await list('?title=a_r')).toEqual({ total: 0, keys: [] })
    expect(await list('?title=p%25r')).toEqual({ total: 0, keys: [] })
    expect(await list('?title=0%25%20R')).toEqual({ total: 1, keys: ['H'] })
    expect(await list('?title=')).toEqual({ total: 5, keys: ['B', 'C', 'A', 'F', 'H'] })
  })

  it('filters by tag in every client form; a model matches with ANY of the tags, case-insensitively', async () => {
    expect(await list('?tag=story')).toEqual({ total: 2, keys: ['C', 'A'] })
    expect(await list('?tag=STORY')).toEqual({ total: 2, keys: ['C', 'A'] })
    expect(await list('?tag=story&tag=news')).toEqual({ total: 3, keys: ['B', 'C', 'A'] })
    expect(await list('?tag%5B%5D=news&tag%5B%5D=calm')).toEqual({ total: 3, keys: ['B', 'A', 'F'] })
    expect(await list('?tag=news,calm')).toEqual({ total: 3, keys: ['B', 'A', 'F'] })
    expect(await list('?tag=nothing')).toEqual({ total: 0, keys: [] })
    expect(await list('?tag=story&title=two')).toEqual({ total: 1, keys: ['C'] })
  })

  it('self=true lists all own models of every visibility; author_id lists that account\'s public ones', async () => {
    expect(await list('?self=true')).toEqual({ total: 6, keys: ['D', 'E', 'B', 'C', 'A', 'H'] })
    expect(await list('?self=true', 'bob')).toEqual({ total: 2, keys: ['G', 'F'] })
    expect(await list(`?author_id=${s.bobAccount}`)).toEqual({ total: 1, keys: ['F'] })
    expect(await list(`?author_id=${s.bobAccount}`, 'bob')).toEqual({ total: 1, keys: ['F'] })
    expect(await list(`?author_id=${s.bobAccount}&self=true`)).toEqual({ total: 6, keys: ['D', 'E', 'B', 'C', 'A', 'H'] })
    expect(await list('?self=true&tag=story')).toEqual({ total: 4, keys: ['D', 'E', 'C', 'A'] })
    expect(await list('?author_id=nobody')).toEqual({ total: 0, keys: [] })
  })

  it('filters by language (from the transcripts) and title_language, repeated or bracketed', async () => {
    expect(await list('?language=de')).toEqual({ total: 1, keys: ['B'] })
    expect(await list('?language=en')).toEqual({ total: 1, keys: ['A'] })
    expect(await list('?language=de&language=EN')).toEqual({ total: 2, keys: ['B', 'A'] })
    expect(await list('?language%5B%5D=de')).toEqual({ total: 1, keys: ['B'] })
    expect(await list('?title_language=de')).toEqual({ total: 1, keys: ['B'] })
    expect(await list('?title_language%5B%5D=de&title_language%5B%5D=zh')).toEqual({ total: 1, keys: ['B'] })
    expect(await list('?language=ja')).toEqual({ total: 0, keys: [] })
  })

  it('pages: size 1 and 100, a page beyond the end is empty with the right total', async () => {
    expect(await list('?page_size=1')).toEqual({ total: 5, keys: ['B'] })
    expect(await list('?page_size=1&page_number=2')).toEqual({ total: 5, keys: ['C'] })
    expect(await list('?page_size=1&page_number=5')).toEqual({ total: 5, keys: ['H'] })
    expect(await list('?page_size=1&page_number=6')).toEqual({ total: 5, keys: [] })
    expect(await list('?page_size=100')).toEqual({ total: 5, keys: ['B', 'C', 'A', 'F', 'H'] })
    expect(await list('?page_size=2&page_number=3')).toEqual({ total: 5, keys: ['H'] })
    expect(await list('?page_number=99')).toEqual({ total: 5, keys: [] })
    expect(await list('?page_number=2147483647&page_size=100')).toEqual({ total: 5, keys: [] })
  })

  it.each([
    ['page_size=0', 'page_size', 'greater_than_equal', "'page_size' must be >= 1"],
    ['page_size=101', 'page_size', 'less_than_equal', "'page_size' must be <= 100"],
    ['page_size=1.5', 'page_size', 'integer_type', "'page_size' must be of type integer"],
    ['page_number=0', 'page_number', 'greater_than_equal', "'page_number' must be >= 1"],
    ['page_number=-3', 'page_number', 'greater_than_equal', "'page_number' must be >= 1"],
    ['sort_by=likes', 'sort_by', 'enum', '\'sort_by\' must be one of: "score", "task_count", "created_at"'],
    ['self=maybe', 'self', 'boolean_type', "'self' must be of type boolean"],
  ])('rejects %s with a 422 naming the query field', async (query, field, type, msg) => {
    const res = await s.app.inject({ method: 'GET', url: `/model?${query}`, headers: s.asAlice })
    expect(res.statusCode).toBe(422)
    expect(res.json()).toEqual([{ loc: ['query', field], type, msg, in: 'query' }])
  })

  it('items are full entities', async () => {
    const { body } = await getJson(s, s.asAlice, '/model?page_size=1')
    const one = await getJson(s, s.asAlice, `/model/${body.items[0]._id}`)
    expect(body.items[0]).toEqual(one.body)
  })
})
