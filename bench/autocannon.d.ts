/** The part of autocannon's API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string
      path?: string
      headers?: Record<string, string>
      body?: string | Buffer
      setupRequest?: (req: Request) => Request
    }
    interface Options {
      url: string
      connections?: number
      duration?: number
      pipelining?: number
      headers?: Record<string, string>
      requests?: Request[]
    }
    interface Histogram {
      average: number
      p50: number
      p90: number
      p99: number
      max: number
    }
    interface Result {
      requests: Histogram & { total: number }
      latency: Histogram
      throughput: Histogram
      errors: number
      timeouts: number
      non2xx: number
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>
  export default autocannon
}
