import { SpeechError } from '../../../errors.js'
import type { RecognizedWord } from '../types.js'
import { cepstralMean, type CepstralMean } from './cmn.js'
import { loadPocketsphinx, type Handle, type PocketsphinxApi } from './ffi.js'

/** The search `align` replaces on every call. */
const ALIGN_SEARCH = 'parla-align'

/** pocketsphinx frames are 10 ms. */
const FRAME_SECONDS = 0.01

/** Fillers and noise tokens of the en-us model that are not words. */
function isFiller(word: string): boolean {
  return word.startsWith('<') || word.startsWith('[') || word.startsWith('++') || word === ''
}

/** `read(2)` → `read`: pronunciation variants are dictionary detail, not text. */
function cleanWord(word: string): string {
  return word.replace(/\(\d+\)$/, '')
}

/** The en-us model's sample rate: word times count in it. */
const SAMPLE_RATE = 16_000

/**
 * A live pass whose cepstral mean was measured on at least this much of its own audio (2 s) is decoded well enough
 * to be the final; one started on less has its mean measured again on all its audio when it reaches this length.
 * On the real-speech set, each recording as one live utterance begun on its first 1 s: 36.4 % WER with that mean
 * throughout, 33.1 % with the mean measured again at 1.5 s, 27.1 % at 2 s, 30.5 % for the batch decode (the whole
 * recording's mean).
 */
const REMEASURE_SAMPLES = 32_000

/** A live utterance under way (`startStream` … `endStream`). */
interface LiveUtterance {
  readonly heard: Int16Array[]
  samples: number
  /** How much of it the current pass's mean was measured on (-1: other audio too, the channel's). */
  meanOf: number
  /** False once `decodeSoFar` ended the native utterance: the next feed starts a new segment. */
  live: boolean
  /** Where the native utterance now running began (samples): its word times count from there. */
  segmentStart: number
  /** Words before the current segment (what the decode so far found), put before its hypotheses. */
  prefix: string[]
  /** The same words with their times, unless only their text is known (a stopped decode so far). */
  prefixWords: RecognizedWord[] | undefined
  /** The last hypothesis given out. */
  hyp: string[]
  /** The last completed decode so far, and how much audio it covered. */
  soFar?: { readonly samples: number; readonly words: RecognizedWord[] }
}

function joined(parts: readonly Int16Array[], length: number): Int16Array {
  const whole = new Int16Array(length)
  let at = 0
  for (const part of parts) {
    whole.set(part, at)
    at += part.length
  }
  return whole
}

export interface DecodeResult {
  readonly words: RecognizedWord[]
  /** True when `shouldStop` ended the utterance early; `words` is then empty. */
  readonly stopped: boolean
}

/**
 * One native pocketsphinx decoder, created once and reused per utterance. Synchronous: it belongs in a
 * worker thread. Not thread-safe; one utterance at a time.
 */
export class PocketsphinxDecoder {
  readonly #api: PocketsphinxApi
  #config: Handle
  #ps: Handle
  #mean: CepstralMean | undefined
  #stream: LiveUtterance | undefined
  #decodes = 0

  constructor(args: readonly string[]) {
    this.#api = loadPocketsphinx()
    this.#config = this.#api.cmd_ln_parse_r(null, this.#api.ps_args(), args.length, args, 1)
    if (!this.#config) {
      throw new SpeechError('unavailable', `[pocketsphinx] invalid decoder arguments: ${args.join(' ')}`)
    }
    this.#ps = this.#api.ps_init(this.#config)
    if (!this.#ps) {
      const msg = '[pocketsphinx] ps_init failed; check that pocketsphinx-en-us is installed'
      throw new SpeechError('unavailable', msg)
    }
    this.#mean = cepstralMean(this.#api, this.#ps, this.#config)
  }

  /** Audio decoded whole so far (`decode`, `align`, and the second passes of `endStream` and `decodeSoFar`). */
  get decodes(): number {
    return this.#decodes
  }

  /** False when the CMN reset could not be set up (unexpected library build); decoding still works. */
  get repeatable(): boolean {
    return this.#mean !== undefined
  }

  /**
   * Decodes one utterance of 16 kHz s16 samples, feeding `blockSamples` at a time and asking `shouldStop`
   * between blocks so an abort costs at most one block of work.
   */
  decode(samples: Int16Array, blockSamples: number, shouldStop: () => boolean): DecodeResult {
    return this.#run(samples, blockSamples, shouldStop)
  }

  /**
   * Forced alignment: decodes with a grammar of exactly `words` in this order (the search puts silence and
   * fillers between them), so what comes back is those words with their times. `words` must be lower-case
   * dictionary words; when one is not in the dictionary the grammar cannot be built and this throws.
   */
  align(samples: Int16Array, words: readonly string[], blockSamples: number, shouldStop: () => boolean): DecodeResult {
    if (!this.#ps) throw new SpeechError('internal_error', '[pocketsphinx] decoder used after free')
    if (words.length === 0 || words.some((w) => !/^[a-z'][a-z'.-]*$/.test(w))) {
      throw new SpeechError('bad_request', `[pocketsphinx] cannot align "${words.join(' ')}": words must be lower-case dictionary words`)
    }
    const grammar = `#JSGF V1.0;\ngrammar parla;\npublic <words> = ${words.join(' ')};\n`
    if (this.#api.ps_set_jsgf_string(this.#ps, ALIGN_SEARCH, grammar) < 0 || this.#api.ps_set_search(this.#ps, ALIGN_SEARCH) < 0) {
      throw new SpeechError('unusable_input', `[pocketsphinx] cannot align "${words.join(' ')}": a word is not in the dictionary`, { field: ['body', 'text'] })
    }
    return this.#run(samples, blockSamples, shouldStop)
  }

  /**
   * Starts an utterance decoded as its audio arrives (`feed`, `endStream`). `first` is the audio known at
   * the start (the turn's padding and first speech): the cepstral mean that seeds normalisation (which then
   * adapts) is measured on it, after `channel` (earlier audio of the same speaker and microphone) if given.
   */
  startStream(first: Int16Array, channel?: Int16Array): void {
    if (!this.#ps) throw new SpeechError('internal_error', '[pocketsphinx] decoder used after free')
    let heard = first
    if (channel && channel.length > 0) {
      heard = new Int16Array(channel.length + first.length)
      heard.set(channel)
      heard.set(first, channel.length)
    }
    this.#mean?.set(heard)
    this.#api.ps_start_stream(this.#ps)
    if (this.#api.ps_start_utt(this.#ps) < 0) throw new SpeechError('engine_failed', '[pocketsphinx] ps_start_utt failed')
    this.#stream = {
      heard: [], samples: 0, meanOf: heard === first ? first.length : -1, live: true, segmentStart: 0,
      prefix: [], prefixWords: [], hyp: [],
    }
  }

  /** Decodes more of the running utterance; returns the best hypothesis so far as words. */
  feed(samples: Int16Array, blockSamples: number): string[] {
    const stream = this.#stream
    if (!stream) throw new SpeechError('internal_error', '[pocketsphinx] feed without a live utterance')
    stream.heard.push(samples)
    stream.samples += samples.length
    if (!stream.live) this.#newSegment(stream, samples.length, blockSamples)
    if (this.#mean && stream.samples >= REMEASURE_SAMPLES && stream.meanOf < REMEASURE_SAMPLES) {
      // The frames from here on are normalised with the mean of all the utterance so far (see REMEASURE_SAMPLES).
      this.#mean.set(joined(stream.heard, stream.samples))
      stream.meanOf = stream.samples
    }
    this.#process(samples, blockSamples)
    const hyp = this.#api.ps_get_hyp(this.#ps, [0]) ?? ''
    stream.hyp = [...stream.prefix, ...hyp.split(/\s+/).filter((w) => !isFiller(w)).map((w) => cleanWord(w).toLowerCase())]
    return stream.hyp
  }

  #process(samples: Int16Array, blockSamples: number): void {
    for (let at = 0; at < samples.length; at += blockSamples) {
      const block = samples.subarray(at, Math.min(samples.length, at + blockSamples))
      if (this.#api.ps_process_raw(this.#ps, block, block.length, 0, 0) < 0) {
        throw new SpeechError('engine_failed', '[pocketsphinx] ps_process_raw failed')
      }
    }
  }

  /** True when the live pass, ended, gives the final: its mean was measured on enough of the utterance. */
  #liveIsFinal(stream: LiveUtterance): boolean {
    if (!this.#mean) return true
    return stream.prefixWords !== undefined && (stream.meanOf >= REMEASURE_SAMPLES || stream.meanOf === stream.samples)
  }

  /** The ended live pass's words after the prefix, timed from the utterance's first sample. */
  #liveWords(stream: LiveUtterance): RecognizedWord[] {
    const offset = stream.segmentStart / SAMPLE_RATE
    const words = this.#words().map((w) => ({ ...w, start: w.start + offset, end: w.end + offset }))
    return [...(stream.prefixWords ?? []), ...words]
  }

  /**
   * The words `endStream` would give now, without ending the utterance (a speculative final while the speaker
   * pauses). It needs the native decoder, so the live pass ends here: a later `feed` goes on in a new segment
   * (its hypotheses after these words), and `endStream` with nothing fed since answers these words without
   * decoding again. Stopped by `shouldStop` between blocks, the utterance goes on all the same.
   */
  decodeSoFar(blockSamples: number, shouldStop: () => boolean): DecodeResult {
    const stream = this.#stream
    if (!stream) throw new SpeechError('internal_error', '[pocketsphinx] decodeSoFar without a live utterance')
    if (stream.soFar?.samples === stream.samples) return { words: stream.soFar.words, stopped: false }
    const endsLivePass = stream.live
    let result: DecodeResult
    if (endsLivePass) {
      stream.live = false
      if (this.#api.ps_end_utt(this.#ps) < 0) throw new SpeechError('engine_failed', '[pocketsphinx] ps_end_utt failed')
    }
    if (endsLivePass && this.#liveIsFinal(stream)) {
      result = { words: this.#liveWords(stream), stopped: false }
    } else {
      result = this.#run(joined(stream.heard, stream.samples), blockSamples, shouldStop)
    }
    if (!result.stopped) {
      stream.soFar = { samples: stream.samples, words: result.words }
      stream.prefix = result.words.map((w) => w.word)
      stream.prefixWords = result.words
    } else {
      stream.prefix = stream.hyp
      stream.prefixWords = undefined
    }
    return result
  }

  /**
   * Goes on after `decodeSoFar`: a new native utterance from `fresh` samples ago, its mean measured on all so far.
   * When that decode was stopped its words are not known, so the new one starts again from the first sample.
   */
  #newSegment(stream: LiveUtterance, fresh: number, blockSamples: number): void {
    const all = joined(stream.heard, stream.samples)
    this.#mean?.set(all)
    this.#api.ps_start_stream(this.#ps)
    if (this.#api.ps_start_utt(this.#ps) < 0) throw new SpeechError('engine_failed', '[pocketsphinx] ps_start_utt failed')
    stream.live = true
    stream.meanOf = stream.samples
    if (stream.prefixWords) {
      stream.segmentStart = stream.samples - fresh
      return
    }
    Object.assign(stream, { segmentStart: 0, prefix: [], prefixWords: [] })
    this.#process(all.subarray(0, stream.samples - fresh), blockSamples)
  }

  /**
   * Ends the running utterance: its words, timed from the stream's first sample. The live pass is the final when
   * its cepstral mean was measured on enough of the utterance's own audio (`REMEASURE_SAMPLES`, or all of it);
   * otherwise (a turn shorter than that, started from another turn's channel or from its first second) the
   * utterance is decoded again with the mean of all of it, as the batch route does. `shouldStop` is asked
   * between blocks of that second pass.
   */
  endStream(blockSamples: number, shouldStop: () => boolean): DecodeResult {
    const stream = this.#stream
    this.#stream = undefined
    if (!stream) throw new SpeechError('internal_error', '[pocketsphinx] endStream without a live utterance')
    if (!stream.live) {
      // Ended by decodeSoFar: its words, unless audio came after them.
      if (stream.soFar?.samples === stream.samples) return { words: stream.soFar.words, stopped: false }
      return this.#run(joined(stream.heard, stream.samples), blockSamples, shouldStop)
    }
    if (this.#api.ps_end_utt(this.#ps) < 0) throw new SpeechError('engine_failed', '[pocketsphinx] ps_end_utt failed')
    if (this.#liveIsFinal(stream)) return { words: this.#liveWords(stream), stopped: false }
    return this.#run(joined(stream.heard, stream.samples), blockSamples, shouldStop)
  }

  /** Drops the running utterance, if any (a cancelled or failed turn). */
  abandonStream(): void {
    const stream = this.#stream
    this.#stream = undefined
    if (stream?.live) this.#api.ps_end_utt(this.#ps)
  }

  #run(samples: Int16Array, blockSamples: number, shouldStop: () => boolean): DecodeResult {
    const api = this.#api
    const ps = this.#ps
    if (!ps) throw new SpeechError('internal_error', '[pocketsphinx] decoder used after free')
    this.#decodes++
    // Without a new stream the frame counter runs on from the previous utterance and every time shifts.
    this.#mean?.set(samples)
    api.ps_start_stream(ps)
    if (api.ps_start_utt(ps) < 0) throw new SpeechError('engine_failed', '[pocketsphinx] ps_start_utt failed')
    for (let at = 0; at < samples.length; at += blockSamples) {
      if (shouldStop()) {
        api.ps_end_utt(ps)
        return { words: [], stopped: true }
      }
      const block = samples.subarray(at, Math.min(samples.length, at + blockSamples))
      if (api.ps_process_raw(ps, block, block.length, 0, 0) < 0) {
        api.ps_end_utt(ps)
        throw new SpeechError('engine_failed', '[pocketsphinx] ps_process_raw failed')
      }
    }
    if (api.ps_end_utt(ps) < 0) throw new SpeechError('engine_failed', '[pocketsphinx] ps_end_utt failed')
    return { words: this.#words(), stopped: false }
  }

  #words(): RecognizedWord[] {
    const api = this.#api
    const lmath = api.ps_get_logmath(this.#ps)
    const words: RecognizedWord[] = []
    const sf: [number] = [0]
    const ef: [number] = [0]
    const ascr: [number] = [0]
    const lscr: [number] = [0]
    const lback: [number] = [0]
    for (let seg = api.ps_seg_iter(this.#ps); seg; seg = api.ps_seg_next(seg)) {
      const raw = api.ps_seg_word(seg)
      if (isFiller(raw)) continue
      api.ps_seg_frames(seg, sf, ef)
      const prob = api.ps_seg_prob(seg, ascr, lscr, lback)
      // The posterior comes back in the log base of the model; exp can overshoot 1 by rounding.
      const confidence = Math.min(1, Math.max(0, api.logmath_exp(lmath, prob)))
      words.push({
        word: cleanWord(raw).toLowerCase(),
        start: sf[0] * FRAME_SECONDS,
        end: (ef[0] + 1) * FRAME_SECONDS,
        confidence,
      })
    }
    return words
  }

  free(): void {
    this.#mean?.free()
    this.#mean = undefined
    if (this.#ps) this.#api.ps_free(this.#ps)
    this.#ps = null
    // ps_init took its own reference to the config; this drops ours.
    if (this.#config) this.#api.cmd_ln_free_r(this.#config)
    this.#config = null
  }
}
