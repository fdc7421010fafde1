/**
 * Function words of the Latin-script languages Parla speaks well besides English, for short sentences where
 * letter statistics are unsure ("La sopa está demasiado salada para mí." scores below the detector's
 * confidence line). Only words that are not also English words are listed ("die", "man", "war", "son",
 * "pour", "come", "con", "do" are left out), and no one-letter words, so an English sentence with a foreign
 * name or phrase in it does not pile up hits. Written for Parla from the languages' grammar.
 */
export const FUNCTION_WORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  de: new Set([
    'der', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'einem', 'einer', 'und', 'ist', 'sind', 'nicht',
    'mit', 'auf', 'für', 'von', 'zu', 'zum', 'zur', 'im', 'ich', 'du', 'er', 'sie', 'wir', 'es', 'mein',
    'meine', 'sehr', 'noch', 'schon', 'auch', 'aber', 'oder', 'wie', 'wo', 'hier', 'heute', 'gern', 'habe',
    'haben', 'wird', 'nach', 'bei', 'aus', 'vor', 'uns', 'mich', 'mir', 'dich', 'dir', 'sich', 'ihr', 'ihre',
    'kein', 'keine', 'jeden', 'jede', 'ganz', 'immer', 'gerade', 'unter', 'über', 'vom', 'beim', 'wenn',
    'dass', 'kann', 'muss', 'soll', 'jetzt', 'nur', 'mehr', 'unser', 'unsere', 'seine', 'sein', 'um',
  ]),
  fr: new Set([
    'le', 'la', 'les', 'des', 'du', 'une', 'un', 'et', 'est', 'sont', 'au', 'aux', 'dans', 'sur', 'avec', 'pas',
    'ne', 'je', 'tu', 'il', 'elle', 'nous', 'vous', 'ils', 'elles', 'ce', 'cette', 'ces', 'mon', 'ma', 'mes',
    'sa', 'ses', 'qui', 'que', 'très', 'mais', 'où', 'ai', 'leur', 'de', 'à', 'en', 'chez', 'vers', 'encore',
    'déjà', 'toujours', 'trop', 'aussi', 'notre', 'nos', 'votre', 'vos', 'se', 'lui', 'moi', 'toi', 'était',
    'été', 'fait', 'être', 'avoir', 'te',
  ]),
  es: new Set([
    'el', 'la', 'los', 'las', 'del', 'al', 'que', 'es', 'está', 'están', 'un', 'una', 'unos', 'unas', 'por',
    'para', 'mi', 'mis', 'tu', 'su', 'sus', 'muy', 'más', 'pero', 'como', 'hay', 'se', 'le', 'les', 'nos',
    'este', 'esta', 'ese', 'esa', 'él', 'ella', 'hemos', 'todo', 'toda', 'todos', 'cuando', 'donde', 'qué',
    'también', 'tengo', 'tiene', 'de', 'en', 'ha', 'han', 'estaba', 'desde', 'hasta', 'entre', 'muy',
    'demasiado', 'nuestro', 'nuestra', 'otra', 'otro', 'hace', 'ya', 'te',
  ]),
  it: new Set([
    'il', 'gli', 'della', 'delle', 'dei', 'degli', 'che', 'è', 'sono', 'ho', 'mi', 'ti', 'si', 'molto', 'anche',
    'una', 'un', 'di', 'del', 'nel', 'nella', 'alla', 'al', 'questo', 'questa', 'io', 'lui', 'lei', 'noi',
    'voi', 'loro', 'più', 'le', 'la', 'ha', 'sei', 'siamo', 'sempre', 'ancora', 'già', 'perché',
  ]),
  pt: new Set([
    'os', 'uma', 'da', 'dos', 'das', 'em', 'na', 'nas', 'nos', 'que', 'é', 'não', 'com', 'para', 'por',
    'muito', 'mais', 'mas', 'eu', 'ele', 'ela', 'você', 'está', 'são', 'isso', 'este', 'esta', 'meu', 'minha',
    'seu', 'sua', 'tem', 'de', 'um', 'ao', 'foi', 'já', 'também',
  ]),
  nl: new Set([
    'het', 'een', 'en', 'van', 'niet', 'met', 'op', 'voor', 'ik', 'je', 'hij', 'zij', 'wij', 'dit', 'maar',
    'ook', 'nog', 'wel', 'zijn', 'naar', 'bij', 'heeft', 'hebben', 'wordt', 'ze', 'mijn', 'jij', 'geen', 'uit',
    'te', 'de', 'dat', 'er', 'al', 'heel', 'altijd', 'onze', 'ons',
  ]),
}

/** French and Italian elide into the next word ("l'eau", "d'accord", "qu'il", "dell'anno"): each counts. */
const ELISION: Readonly<Record<string, RegExp>> = {
  fr: /^(?:l|d|j|qu|n|c|s|m|t)['’]\p{L}/u,
  it: /^(?:l|dell|all|nell|dall|sull|un)['’]\p{L}/u,
}

/** Letters and marks only one of these languages writes: one more hit for it when the text has any. */
const OWN_LETTERS: Readonly<Record<string, RegExp>> = {
  de: /[ßäöü]/iu,
  es: /[ñ¿¡]/iu,
  fr: /[êîïûœ]|è\p{L}/iu,
  pt: /[ãõ]/iu,
}

/** How much of `words` (`text` for its letters) speaks for `language` (0 for a language without a list). */
export function functionWordHits(words: readonly string[], language: string, text = ''): number {
  const set = FUNCTION_WORDS[language]
  if (!set) return 0
  const elision = ELISION[language]
  const letters = OWN_LETTERS[language]?.test(text) ? 1 : 0
  return letters + words.filter((w) => set.has(w.toLowerCase()) || elision?.test(w.toLowerCase())).length
}
