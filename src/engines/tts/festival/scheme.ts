import { toAsciiText } from '../ascii-text.js'

/**
 * The Scheme Parla sends to festival. User text only ever appears inside one string literal, escaped here;
 * it is handed to `Utterance` through `eval` of a quoted list, so it is never read as code.
 */

/** Loads the voice and defines `parla_say`, which prints words, then the wave, then `@@OK id` (or `@@ERR id`). */
export const FESTIVAL_INIT = `
(unwind-protect
  (begin (voice_cmu_us_slt_arctic_hts) (format t "@@READY\\n"))
  (format t "@@NOVOICE\\n"))
(defvar parla_hts_base hts_engine_params)
(define (parla_word w)
  (format t "@@W\\t%s\\t%s\\t%s\\t%s\\n"
    (item.name w)
    (item.feat w "R:Token.parent.name")
    (item.feat w "R:SylStructure.daughter1.daughter1.segment_start")
    (item.feat w "R:SylStructure.daughtern.daughtern.segment_end")))
(define (parla_say id text rate)
  (set! hts_engine_params (append parla_hts_base (list (list "-r" rate))))
  (unwind-protect
    (let ((u (utt.synth (eval (list 'Utterance 'Text text)))))
      (mapcar parla_word (utt.relation.items u 'Word))
      (format t "@@WAVE\\n")
      (utt.save.wave u "-" 'riff)
      (format t "@@OK %s\\n" id))
    (format t "@@ERR %s\\n" id))
  (set! hts_engine_params parla_hts_base))
`

/** A Scheme string literal holding `text`: ASCII only (see `toAsciiText`), backslashes and quotes escaped. */
export function schemeString(text: string): string {
  return `"${toAsciiText(text).replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

/** One request: synthesize `text` at HTS speed `rate` (1 = normal), answering with `@@OK id`. */
export function sayCommand(id: string, text: string, rate: number): string {
  if (!/^[A-Za-z0-9]+$/.test(id)) throw new Error(`bad request id ${id}`)
  const r = Number.isFinite(rate) ? Math.min(4, Math.max(0.25, rate)) : 1
  return `(parla_say "${id}" ${schemeString(text)} ${r.toFixed(4)})\n`
}
