/**
 * A real nginx (Debian's nginx-light, installed by scripts/ensure-deps.sh --test) in front of Parla nodes, with
 * the configuration docs/deploy.md recommends: streaming unbuffered, WebSockets passed, a 503 (a draining node)
 * or a refused connection retried on the next node. Runs in the foreground in its own temp prefix.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './cluster.js'

export interface Nginx {
  readonly url: string
  stop(): Promise<void>
}

export async function startNginx(upstreams: readonly string[]): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), 'parla-nginx-'))
  const port = await freePort()
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
    listen 127.0.0.1:${port};
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
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited at start: ${errors}`)
    // Any answer means nginx listens (the nodes behind it may still be starting).
    if (await fetch(`${url}/healthz`).then(() => true, () => false)) break
    if (i > 600) throw new Error(`nginx did not listen: ${errors}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
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
