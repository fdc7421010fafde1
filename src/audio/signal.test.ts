import { describe, expect, it } from 'vitest'
import { float32ToInt16 } from './signal.js'

describe('float32ToInt16', () => {
  it('scales each sign to its own full scale and rounds halves up', () => {
    const out = float32ToInt16(new Float32Array([0, 1, -1, 0.5, -0.5, -1.5 / 32768]))
    expect([...out]).toEqual([0, 32767, -32768, 16384, -16384, -1])
  })

  it('clamps what is outside [-1, 1] and turns NaN into silence', () => {
    const out = float32ToInt16(new Float32Array([1.5, -7, Infinity, -Infinity, NaN]))
    expect([...out]).toEqual([32767, -32768, 32767, -32768, 0])
  })

  it('writes into the given array from `at`, leaving the rest alone', () => {
    const out = new Int16Array([9, 9, 9, 9, 9])
    float32ToInt16(new Float32Array([0.25, -0.25]), out, 2)
    expect([...out]).toEqual([9, 9, 8192, -8192, 9])
  })
})
