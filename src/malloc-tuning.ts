import koffi from 'koffi'

/** glibc's `mallopt` parameter for the size from which allocations get their own mapping. */
const M_MMAP_THRESHOLD = -3
const MMAP_THRESHOLD = 128 * 1024

/**
 * Makes freed audio buffers go back to the operating system. Node allocates `ArrayBuffer`s with malloc, and
 * glibc raises its mmap threshold each time a large mapped block is freed (up to 32 MB), so after the first
 * upload, decoded files and blocks of a few MB come from the heap arenas of whichever thread touched them and
 * stay resident after they are freed. Measured: decoding a 10-minute MP3 three times in a row grew the
 * process 86 → 191 → 241 → 265 MB with glibc's default and held 150–155 MB with the threshold fixed at
 * 128 KB, its initial value (fixing it also stops the automatic raise). Allocations below 128 KB, nearly all
 * of them, are unaffected. A no-op where glibc is not the C library.
 */
export function tuneMalloc(): boolean {
  try {
    const mallopt = koffi.load('libc.so.6').func('int mallopt(int param, int value)') as (p: number, v: number) => number
    return mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) === 1
  } catch {
    return false
  }
}
