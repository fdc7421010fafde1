import { SpeechError, type ValidationIssue } from '../../errors.js'
import type { Upload } from '../../store/model-types.js'
import { tooLarge, tooManyFiles, type BodyLimits, type RawBody } from './model-body.js'

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/
const FILE_KINDS = 'base64 string, MessagePack bin, or a multipart file'

const isByteArray = (data: unknown): data is number[] =>
  Array.isArray(data) && data.every((b) => Number.isInteger(b) && b >= 0 && b < 256)

/**
 * Reads fields from either body shape with the same rules, collecting every problem as a 422 entry.
 * JSON/MessagePack `null` means absent. Text forms may repeat a field; only list fields may.
 */
export class FieldReader {
  readonly issues: ValidationIssue[] = []
  private readonly raw: RawBody
  private readonly limits: BodyLimits

  constructor(raw: RawBody, limits: BodyLimits) {
    this.raw = raw
    this.limits = limits
  }

  /** Records a problem with the field at `loc` (below `body`). Returns undefined for `return r.add(…)`. */
  add(loc: (string | number)[], type: string, msg: string): undefined {
    this.issues.push({ loc: ['body', ...loc.map(String)], type, msg, in: 'body' })
    return undefined
  }

  /** Raw value(s) of a field: `undefined` when absent. */
  private get(name: string): unknown {
    if (this.raw.kind === 'typed') {
      const v = Object.hasOwn(this.raw.values, name) ? this.raw.values[name] : undefined
      return v === null ? undefined : v
    }
    return this.raw.values.get(name)
  }

  string(name: string, opts: { required?: boolean; max: number; nonEmpty?: boolean }): string | undefined {
    let v = this.get(name)
    if (this.raw.kind === 'text' && Array.isArray(v)) {
      if (v.length > 1) return this.add([name], 'value_error', `'${name}' was sent ${v.length} times; send it once`)
      v = v[0]
    }
    if (v === undefined) return opts.required ? this.add([name], 'missing', `Field required: add '${name}'`) : undefined
    if (typeof v !== 'string') return this.add([name], 'string_type', `'${name}' must be of type string`)
    const value = v.trim()
    if (opts.nonEmpty && value === '') return this.add([name], 'string_too_short', `'${name}' must not be empty`)
    if (value.length > opts.max) {
      return this.add([name], 'string_too_long', `'${name}' must NOT have more than ${opts.max} characters (got ${value.length})`)
    }
    return value
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const v = this.string(name, { max: Number.MAX_SAFE_INTEGER })
    if (v === undefined || (allowed as readonly string[]).includes(v)) return v as T | undefined
    return this.add([name], 'enum', `'${name}' must be one of: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`)
  }

  bool(name: string): boolean | undefined {
    const v = this.raw.kind === 'typed' ? this.get(name) : this.string(name, { max: 10 })
    if (v === undefined || typeof v === 'boolean') return v
    const text = typeof v === 'string' ? v.trim().toLowerCase() : ''
    if (text === 'true' || text === '1') return true
    if (text === 'false' || text === '0') return false
    return this.add([name], 'bool_parsing', `'${name}' must be a boolean: true or false`)
  }

  /** A list of strings: an array, repeated text fields, or one string (split by `split`). */
  list(name: string, split: (single: string) => string[]): string[] | undefined {
    const v = this.get(name)
    if (v === undefined) return undefined
    const items = typeof v === 'string' ? [v] : Array.isArray(v) ? v : null
    if (!items) return this.add([name], 'list_type', `'${name}' must be a list of strings or one string`)
    const bad = items.findIndex((x) => typeof x !== 'string')
    if (bad >= 0) return this.add([name, bad], 'string_type', `'${name}' items must be of type string`)
    return items.length === 1 ? split(items[0] as string) : (items as string[])
  }

  /** Files: multipart parts; base64 strings (JSON, forms); bin or `{type:'Buffer', data}` (MessagePack/JSON). */
  files(name: string): Upload[] | undefined {
    const parts = this.raw.kind === 'text' ? (this.raw.files.get(name) ?? []) : []
    const v = this.get(name)
    const values = v === undefined ? [] : Array.isArray(v) ? v : [v]
    if (parts.length === 0 && values.length === 0) return undefined
    const out: Upload[] = [...parts]
    for (const value of values) {
      const bytes = this.bytes(value, name, out.length)
      if (bytes) out.push({ filename: '', bytes })
    }
    for (const f of out) {
      if (f.bytes.length > this.limits.maxUploadBytes) throw tooLarge(f.filename ? `'${f.filename}'` : `A file in '${name}'`, this.limits)
    }
    return out
  }

  private bytes(value: unknown, name: string, index: number): Uint8Array | null {
    // A plain Uint8Array view: MessagePack bin arrives as Buffer, whose `slice` does not copy.
    if (value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
    if (typeof value === 'string') {
      const text = value.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '')
      if (BASE64.test(text) && text.length % 4 !== 1) return new Uint8Array(Buffer.from(text, 'base64'))
      return this.add([name, index], 'value_error', `${name}[${index}] is not valid base64; send the file bytes base64-encoded, as MessagePack bin, or as a multipart file`) ?? null
    }
    const buf = value as { type?: unknown; data?: unknown } | null
    if (buf && typeof buf === 'object' && buf.type === 'Buffer' && isByteArray(buf.data)) return Uint8Array.from(buf.data)
    return this.add([name, index], 'bytes_type', `${name}[${index}] must be a file: ${FILE_KINDS}`) ?? null
  }

  tooManyFiles(count: number): void {
    if (count > this.limits.maxUploadFiles) throw tooManyFiles(this.limits)
  }

  /** Throws the collected problems as one 422. */
  done(): void {
    if (this.issues.length === 0) return
    const summary = this.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')
    throw new SpeechError('validation_failed', summary, { issues: this.issues })
  }
}
