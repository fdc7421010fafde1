import type { WasmMemory } from './wasm.js'

/**
 * The few WASI preview1 calls flite's wasm imports, written in JS over an in-memory directory. flite reads
 * nothing from disk (its voices are compiled in); it writes its trace to stdout and its wav to a file in `.`.
 * Keeping that in memory means no host file descriptors, no scratch directories, and none of node:wasi's
 * native state (see docs/decisions.md, "flite without node:wasi"), so one instance can be reused for every run.
 */

const ERRNO = { success: 0, badf: 8, inval: 28, noent: 44, spipe: 70 } as const
const FILETYPE = { characterDevice: 2, directory: 3, regularFile: 4 } as const
const O_CREAT = 1
const O_TRUNC = 8
/** fd 3 is the one preopened directory, `.`; files get 4 and up. */
const DIR_FD = 3

/** Thrown by `proc_exit` to unwind the wasm stack; `code` is the program's exit status. */
export class WasiExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`)
  }
}

interface OpenFile {
  readonly path: string
  data: Uint8Array
  size: number
  position: number
}

/** One WASI "process" state: arguments, captured stdout/stderr, files written to `.`. Reset before each run. */
export class MemoryWasi {
  #memory: WasmMemory | undefined
  #args: Uint8Array[] = []
  #stdout: Uint8Array[] = []
  #stderr: Uint8Array[] = []
  #open = new Map<number, OpenFile>()
  #files = new Map<string, Uint8Array>()
  #nextFd = DIR_FD + 1

  bind(memory: WasmMemory): void {
    this.#memory = memory
  }

  reset(args: readonly string[]): void {
    const encoder = new TextEncoder()
    this.#args = args.map((a) => encoder.encode(`${a}\0`))
    this.#stdout = []
    this.#stderr = []
    this.#open.clear()
    this.#files.clear()
    this.#nextFd = DIR_FD + 1
  }

  stdout(): string {
    return Buffer.concat(this.#stdout).toString('utf8')
  }

  stderr(): string {
    return Buffer.concat(this.#stderr).toString('utf8')
  }

  /** A file the program wrote and closed (or left open) in `.`. */
  file(path: string): Uint8Array | undefined {
    const open = [...this.#open.values()].find((f) => f.path === path)
    return open ? open.data.slice(0, open.size) : this.#files.get(path)
  }

  #view(): DataView {
    return new DataView(this.#memory!.buffer)
  }

  #bytes(ptr: number, len: number): Uint8Array {
    return new Uint8Array(this.#memory!.buffer, ptr, len)
  }

  #write(file: OpenFile, chunk: Uint8Array): void {
    const end = file.position + chunk.length
    if (end > file.data.length) {
      const grown = new Uint8Array(Math.max(end, file.data.length * 2, 4096))
      grown.set(file.data.subarray(0, file.size))
      file.data = grown
    }
    file.data.set(chunk, file.position)
    file.position = end
    file.size = Math.max(file.size, end)
  }

  /** The `wasi_snapshot_preview1` import object. */
  imports(): Record<string, (...args: never[]) => number> {
    const sizes = (countPtr: number, bufSizePtr: number): number => {
      const view = this.#view()
      view.setUint32(countPtr, this.#args.length, true)
      view.setUint32(bufSizePtr, this.#args.reduce((n, a) => n + a.length, 0), true)
      return ERRNO.success
    }
    return {
      args_sizes_get: sizes,
      args_get: (argvPtr: number, bufPtr: number) => {
        const view = this.#view()
        let at = bufPtr
        this.#args.forEach((arg, i) => {
          view.setUint32(argvPtr + i * 4, at, true)
          this.#bytes(at, arg.length).set(arg)
          at += arg.length
        })
        return ERRNO.success
      },
      clock_time_get: (_id: number, _precision: bigint, timePtr: number) => {
        this.#view().setBigUint64(timePtr, process.hrtime.bigint(), true)
        return ERRNO.success
      },
      fd_write: (fd: number, iovs: number, iovsLen: number, writtenPtr: number) => {
        const view = this.#view()
        const file = this.#open.get(fd)
        if (fd !== 1 && fd !== 2 && !file) return ERRNO.badf
        let written = 0
        for (let i = 0; i < iovsLen; i++) {
          const chunk = this.#bytes(view.getUint32(iovs + i * 8, true), view.getUint32(iovs + i * 8 + 4, true))
          if (file) this.#write(file, chunk)
          else (fd === 1 ? this.#stdout : this.#stderr).push(chunk.slice())
          written += chunk.length
        }
        view.setUint32(writtenPtr, written, true)
        return ERRNO.success
      },
      fd_read: (fd: number, _iovs: number, _iovsLen: number, readPtr: number) => {
        if (fd !== 0) return ERRNO.badf
        this.#view().setUint32(readPtr, 0, true)
        return ERRNO.success
      },
      fd_seek: (fd: number, offset: bigint, whence: number, newOffsetPtr: number) => {
        const file = this.#open.get(fd)
        if (!file) return fd <= 2 ? ERRNO.spipe : ERRNO.badf
        const base = [0, file.position, file.size][whence]
        const position = base === undefined ? -1 : base + Number(offset)
        if (position < 0) return ERRNO.inval
        file.position = position
        this.#view().setBigUint64(newOffsetPtr, BigInt(position), true)
        return ERRNO.success
      },
      fd_close: (fd: number) => {
        const file = this.#open.get(fd)
        if (!file) return fd <= DIR_FD ? ERRNO.success : ERRNO.badf
        this.#files.set(file.path, file.data.slice(0, file.size))
        this.#open.delete(fd)
        return ERRNO.success
      },
      fd_fdstat_get: (fd: number, statPtr: number) => {
        const type = fd <= 2 ? FILETYPE.characterDevice : fd === DIR_FD ? FILETYPE.directory
          : this.#open.has(fd) ? FILETYPE.regularFile : 0
        if (!type) return ERRNO.badf
        const view = this.#view()
        view.setUint8(statPtr, type)
        view.setUint16(statPtr + 2, 0, true)
        view.setBigUint64(statPtr + 8, 0xffff_ffff_ffff_ffffn, true)
        view.setBigUint64(statPtr + 16, 0xffff_ffff_ffff_ffffn, true)
        return ERRNO.success
      },
      fd_fdstat_set_flags: () => ERRNO.success,
      fd_prestat_get: (fd: number, prestatPtr: number) => {
        if (fd !== DIR_FD) return ERRNO.badf
        const view = this.#view()
        view.setUint32(prestatPtr, 0, true)
        view.setUint32(prestatPtr + 4, 1, true)
        return ERRNO.success
      },
      fd_prestat_dir_name: (fd: number, pathPtr: number, len: number) => {
        if (fd !== DIR_FD || len < 1) return ERRNO.badf
        this.#bytes(pathPtr, 1)[0] = 0x2e
        return ERRNO.success
      },
      path_open: (dirFd: number, _lookup: number, pathPtr: number, pathLen: number, oflags: number,
        _base: bigint, _inheriting: bigint, _fdflags: number, fdPtr: number) => {
        if (dirFd !== DIR_FD) return ERRNO.badf
        const path = Buffer.from(this.#bytes(pathPtr, pathLen)).toString('utf8')
        const existing = this.#files.get(path)
        if (!existing && !(oflags & O_CREAT)) return ERRNO.noent
        const data = existing && !(oflags & O_TRUNC) ? existing.slice() : new Uint8Array(0)
        const fd = this.#nextFd++
        this.#open.set(fd, { path, data, size: data.length, position: 0 })
        this.#view().setUint32(fdPtr, fd, true)
        return ERRNO.success
      },
      proc_exit: (code: number) => {
        throw new WasiExit(code)
      },
    }
  }
}
