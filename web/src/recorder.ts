// Records from the microphone with MediaRecorder (WebM/Opus in Chromium and Firefox; Parla decodes it).

/** Turns a button into a record/stop toggle; `done` gets the recording as a File. */
export function recordButton(button: HTMLButtonElement, done: (file: File) => void, fail: (message: string) => void): void {
  const idle = button.textContent ?? 'Record'
  let recorder: MediaRecorder | undefined
  button.addEventListener('click', async () => {
    if (recorder) {
      recorder.stop()
      return
    }
    if (!navigator.mediaDevices?.getUserMedia) {
      fail('This browser cannot record here. Recording needs https or http://127.0.0.1; upload a file instead.')
      return
    }
    let stream: MediaStream
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true })
    } catch {
      fail('The microphone is not available: allow this page to use it in the browser, or upload a file instead.')
      return
    }
    const parts: Blob[] = []
    const active = (recorder = new MediaRecorder(stream))
    active.ondataavailable = (e) => parts.push(e.data)
    active.onstop = () => {
      stream.getTracks().forEach((t) => t.stop())
      recorder = undefined
      button.textContent = idle
      button.setAttribute('aria-pressed', 'false')
      const type = active.mimeType || 'audio/webm'
      done(new File(parts, `recording.${type.includes('ogg') ? 'ogg' : 'webm'}`, { type }))
    }
    active.start()
    // The button shows how long the recording is so far, so the speaker knows it is running.
    const started = performance.now()
    const show = () => (button.textContent = `Stop recording (${((performance.now() - started) / 1000).toFixed(1)} s)`)
    show()
    const timer = setInterval(show, 200)
    active.addEventListener('stop', () => clearInterval(timer))
    button.setAttribute('aria-pressed', 'true')
  })
}
