import { describe, expect, it } from 'vitest'
import { instructionCues } from './instructions.js'

describe('instructionCues', () => {
  it('turns words and phrases naming tags into cues, in order, in the dialect\'s brackets', () => {
    expect(instructionCues('Speak calmly, in a slightly sad voice.', 's2-pro')).toBe('[calm][slightly sad]')
    expect(instructionCues('whisper it', 's1')).toBe('(whispering)')
  })

  it('skips negated tags, pauses, duplicates and words that name nothing; keeps at most three', () => {
    expect(instructionCues('Do not sound angry. Be cheerful, happy, happy.', 's2-pro')).toBe('[happy]')
    expect(instructionCues('Read it like a news anchor with a pause', 's2-pro')).toBe('')
    expect(instructionCues('excited, fast, loud and proud', 's2-pro').match(/\[/g)).toHaveLength(3)
    expect(instructionCues(undefined, 's2-pro')).toBe('')
  })
})
