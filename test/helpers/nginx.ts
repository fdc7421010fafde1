/**
 * A real nginx (Debian's nginx-light, installed by scripts/ensure-deps.sh --test) in front of Parla nodes, with
 * the configuration docs/deploy.md recommends: streaming unbuffered, WebSockets passed, a 503 (a draining node)
 * or a refused connection retried on the next node. Runs in the foreground in its own temp prefix.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:https'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './cluster.js'

export interface Nginx {
  readonly url: string
  /** With `tls`: the self-signed certificate (PEM) nginx presents, for the client to trust. */
  readonly cert?: string
  stop(): Promise<void>
}

/** A self-signed certificate for 127.0.0.1 (openssl), as a deployment's own certificate would be. */
function selfSigned(dir: string): void {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' })
}

export async function startNginx(upstreams: readonly string[], options: { tls?: boolean } = {}): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), 'parla-nginx-'))
  const port = await freePort()
  if (options.tls) selfSigned(dir)
  const listen = options.tls
    ? `listen 127.0.0.1:${port} ssl;\n    ssl_certificate ${dir}/cert.pem;\n    ssl_certificate_key ${dir}/key.pem;`
    : `listen 127.0.0.1:${port};`
  const servers = upstreams.map((u) => `    server ${new URL(u).host} max_fails=0;`).join('\n')
  const config = `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream parla {
${servers}
    keepalive 16;
  }
  map $http_upgrade $connection_upgrade { default upgrade; '' ''; }
  server {
    ${listen}
    client_max_body_size 64m;
    location / {
      proxy_pass http://parla;
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_read_timeout 330s;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_next_upstream error timeout http_503 non_idempotent;
      proxy_next_upstream_tries 2;
    }
  }
}
`
  await writeFile(join(dir, 'nginx.conf'), config)
  const child: ChildProcess = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] })
  let errors = ''
  child.stderr!.on('data', (d: Buffer) => (errors += d.toString()))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`
  const cert = options.tls ? readFileSync(join(dir, 'cert.pem'), 'utf8') : undefined
  // The readiness probe trusts the certificate just made.
  const probe = options.tls ? () => probeTls(url, cert!) : () => fetch(`${url}/healthz`).then(() => true, () => false)
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited at start: ${errors}`)
    // Any answer means nginx listens (the nodes behind it may still be starting).
    if (await probe()) break
    if (i > 600) throw new Error(`nginx did not listen: ${errors}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    ...(cert && { cert }),
    async stop() {
      // SIGTERM: the master stops its worker and exits. SIGKILL on the master would leave the worker running,
      // orphaned; it is only the fallback if nginx does not go.
      if (child.exitCode === null) child.kill('SIGTERM')
      const fallback = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(fallback)
      await rm(dir, { recursive: true, force: true })
    },
  }
}

function probeTls(url: string, ca: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${url}/healthz`, { ca }, (res) => {
      res.resume()
      resolve(true)
    })
    req.on('error', () => resolve(false))
    req.end()
  })
}
