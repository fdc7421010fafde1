/** Texts for `bench/tts.ts`. */
export const SENTENCE = 'The quick brown fox jumps over the lazy dog, near the river bank.'

export const THREE_SENTENCES =
  'Officials said the bridge will reopen to traffic early next month. ' +
  'The council approved the budget after a long debate on Tuesday evening. ' +
  'More details will be published on the city website later this week.'

const PARAGRAPH = [
  'Officials said the bridge will reopen to traffic early next month, after two years of repairs.',
  'The council approved the budget after a long debate on Tuesday evening.',
  'Residents are asked to use the northern route until then, or to take the ferry from the old harbour.',
  'More details will be published on the city website later this week.',
  'Engineers replaced the deck, the cables and most of the steel supports under the river.',
  'Cyclists will get a separate lane on both sides, and pedestrians a wider path.',
  'The mayor thanked the workers and the neighbours for their patience during the long closure.',
  'A small ceremony is planned for the morning of the opening day, weather permitting.',
]

/** About 2,000 characters of news-like prose. */
export const PARAGRAPH_TEXT = ((): string => {
  let text = ''
  for (let i = 0; text.length < 2000; i++) text += `${PARAGRAPH[i % PARAGRAPH.length]} `
  return text.trim()
})()
