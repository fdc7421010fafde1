import { isServerFault, type SpeechError } from '../../errors.js'

/**
 * The Wyoming surface's error wire: the `error` event's data, `text` and `code` only (the protocol has no
 * more). A 422's fields are named in the text by their messages; a full node's retry advice is in the text;
 * a server fault's message is never sent.
 */
export function wyomingErrorEvent(e: SpeechError): { text: string; code: string } {
  const text = isServerFault(e) ? 'Internal server error' : e.issues.length > 0 ? e.issues.map((i) => i.msg).join('; ') : e.message
  return { text, code: e.code }
}
