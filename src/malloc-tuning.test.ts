import { describe, expect, it } from 'vitest'
import { tuneMalloc } from './malloc-tuning.js'

describe('tuneMalloc', () => {
  it('sets glibc\'s mmap threshold here (Debian, glibc), and can be called again', () => {
    expect(tuneMalloc()).toBe(true)
    expect(tuneMalloc()).toBe(true)
  })
})
